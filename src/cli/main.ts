import { Command } from 'commander';
import { registerColumnsCommand } from './columns-command.ts';
import { registerContactsCommand } from './contacts-command.ts';
import { registerEmulatorCommand } from './emulator-command.ts';
import { registerGroupsCommand } from './groups-command.ts';
import { registerServeCommands } from './serve-commands.ts';
import { registerSmsCommand } from './sms-command.ts';
import { registerWebhooksCommand } from './webhooks-command.ts';

/**
 * The `replyflow` command. Each sub-command lives in its own `*-command.ts` file that exports a
 * `register…Command(program)` function; this file only wires them together.
 */
const program = new Command('replyflow')
  .description('Two-way SMS bots on XState and Redis')
  .showHelpAfterError();

registerServeCommands(program);
registerEmulatorCommand(program);
registerSmsCommand(program);
registerGroupsCommand(program);
registerContactsCommand(program);
registerColumnsCommand(program);
registerWebhooksCommand(program);

await program.parseAsync(process.argv);
