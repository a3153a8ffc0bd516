import { Command } from 'commander';
import { registerEmulatorCommand } from './emulator-command.ts';
import { registerServeCommands } from './serve-commands.ts';

/**
 * The `replyflow` command. Each sub-command lives in its own `*-command.ts` file that exports a
 * `register…Command(program)` function; this file only wires them together.
 */
const program = new Command('replyflow')
  .description('Two-way SMS bots on XState and Redis')
  .showHelpAfterError();

registerServeCommands(program);
registerEmulatorCommand(program);

await program.parseAsync(process.argv);
