import { Command } from 'commander';

type Register = (program: Command) => void;

/**
 * The `replyflow` command. Each sub-command lives in its own `*-command.ts` file exporting a
 * `register…(program)` function. Only the file of the command being run is imported (every file
 * is TypeScript compiled at start), so `replyflow emulator` does not pay for the server's
 * modules; `--help` and unknown commands load them all.
 */
const commands: Record<string, () => Promise<Register>> = {
  start: async () => (await import('./serve-commands.ts')).registerServeCommands,
  worker: async () => (await import('./serve-commands.ts')).registerServeCommands,
  dev: async () => (await import('./serve-commands.ts')).registerServeCommands,
  emulator: async () => (await import('./emulator-command.ts')).registerEmulatorCommand,
  sms: async () => (await import('./sms-command.ts')).registerSmsCommand,
  groups: async () => (await import('./groups-command.ts')).registerGroupsCommand,
  contacts: async () => (await import('./contacts-command.ts')).registerContactsCommand,
  columns: async () => (await import('./columns-command.ts')).registerColumnsCommand,
  webhooks: async () => (await import('./webhooks-command.ts')).registerWebhooksCommand,
  conversations: async () =>
    (await import('./conversations-command.ts')).registerConversationsCommand,
  results: async () => (await import('./results-command.ts')).registerResultsCommand,
  bots: async () => (await import('./bots-lint-command.ts')).registerBotsLintCommand,
};

const program = new Command('replyflow')
  .description('Two-way SMS bots on XState and Redis')
  .showHelpAfterError();

const wanted = process.argv[2];
const loaders = wanted && wanted in commands ? [commands[wanted]!] : Object.values(commands);
for (const register of new Set(await Promise.all(loaders.map((load) => load())))) register(program);

await program.parseAsync(process.argv);
