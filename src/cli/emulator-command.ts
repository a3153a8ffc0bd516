import type { Command } from 'commander';

/** `replyflow emulator`: placeholder until the emulator lands (issue 2). */
export function registerEmulatorCommand(program: Command): void {
  program.command('emulator').description('Run the local emulator of the messaging service');
}
