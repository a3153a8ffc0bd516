import { readFileSync } from 'node:fs';
import { Command } from 'commander';

type Register = (program: Command) => void;

/**
 * The `replyflow` command. Each sub-command lives in its own `*-command.ts` file exporting a
 * `register…(program)` function. Only the file of the command being run is imported, so
 * `replyflow emulator` does not pay for the server's modules; `--help` and unknown commands
 * load them all. These files only define the commands and their options (commander, the option
 * parsers): each action imports its implementation (`*-actions.ts`, or the modules it needs)
 * when it runs, so `--version` and any `--help` load no more than them.
 */
const commands: Record<string, () => Promise<Register>> = {
  start: async () => (await import('./serve-commands.ts')).registerServeCommands,
  web: async () => (await import('./serve-commands.ts')).registerServeCommands,
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
  chat: async () => (await import('./chat-command.ts')).registerChatCommand,
  results: async () => (await import('./results-command.ts')).registerResultsCommand,
  stats: async () => (await import('./stats-command.ts')).registerStatsCommand,
  suppressions: async () => (await import('./suppressions-command.ts')).registerSuppressionsCommand,
  campaigns: async () => (await import('./campaigns-command.ts')).registerCampaignsCommand,
  test: async () => (await import('./test-command.ts')).registerTestCommand,
  // `bots lint` and `bots check` live in their own files and share the `bots` command.
  bots: async () => {
    const [lint, check] = await Promise.all([
      import('./bots-lint-command.ts'),
      import('./bots-check-command.ts'),
    ]);
    return (program) => {
      lint.registerBotsLintCommand(program);
      check.registerBotsCheckCommand(program);
    };
  },
};

const { version } = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as { version: string };

const program = new Command('replyflow')
  .description('Two-way SMS bots on XState and Redis')
  .version(version, '-v, --version', 'print the version of replyflow')
  .showHelpAfterError();

const wanted = process.argv[2];
const loaders = wanted && wanted in commands ? [commands[wanted]!] : Object.values(commands);
for (const register of new Set(await Promise.all(loaders.map((load) => load())))) register(program);

// `replyflow nope --help` would print the top-level help as if `nope` existed: drop the help
// flag, so commander says the command is unknown (and suggests the closest one), with exit 1.
const known = (name: string) =>
  name === 'help' || program.commands.some((c) => c.name() === name || c.aliases().includes(name));
const unknown = wanted !== undefined && !wanted.startsWith('-') && !known(wanted);
const argv = unknown
  ? process.argv.filter((arg, i) => i < 3 || (arg !== '--help' && arg !== '-h'))
  : process.argv;
await program.parseAsync(argv);
