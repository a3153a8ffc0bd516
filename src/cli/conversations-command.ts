import type { Command } from 'commander';
import { startWithPolicy } from '../admin/start-with-policy.ts';
import { loadConfig } from '../app/config.ts';
import { loadBots } from '../bot/load-bots.ts';
import { ConfigError, ReplyflowError } from '../errors.ts';
import { createLogger } from '../observability/logger.ts';
import { openDeploymentStore } from './open-deployment-store.ts';

interface StartOptions {
  phone: string;
  input?: string;
  key?: string;
  location?: string;
}

/**
 * `replyflow conversations start <bot> --phone N --input JSON [--key K]`: what
 * `POST /admin/conversations` does, against the store the environment names (REDIS_URL or
 * REDIS_CLUSTER_NODES), for
 * scripts and cron jobs. Prints the answer as JSON; exits 1 when nothing was started.
 */
export function registerConversationsCommand(program: Command): void {
  const conversations = program
    .command('conversations')
    .description(
      'Start conversations in the running deployment (needs REDIS_URL or REDIS_CLUSTER_NODES)',
    );
  conversations
    .command('start <bot>')
    .description("Start a bot's conversation with a phone, as POST /admin/conversations does")
    .requiredOption('--phone <phone>', 'the recipient (+33 6 12 34 56 78)')
    .option('--input <json>', "the bot's input, as JSON (checked against the bot's input schema)")
    .option(
      '--key <key>',
      'idempotency key: the same key again (for this phone) starts nothing new',
    )
    .option('--location <name>', 'the configured location (default: the only one)')
    .action(async (bot: string, options: StartOptions) => {
      try {
        process.exitCode = await start(bot, options);
      } catch (error) {
        if (!(error instanceof ReplyflowError)) throw error;
        process.stderr.write(`error ${error.code}: ${error.message}\n`);
        process.exitCode = 1;
      }
    });
}

async function start(bot: string, options: StartOptions): Promise<number> {
  let input: unknown;
  try {
    input = options.input === undefined ? undefined : JSON.parse(options.input);
  } catch (cause) {
    throw new ConfigError(
      `--input is not JSON (${(cause as Error).message}): write it as '{"at":"10:00"}'`,
    );
  }
  const config = await loadConfig(process.env);
  const logger = createLogger({ level: config.logLevel === 'info' ? 'warn' : config.logLevel });
  const { store, close } = openDeploymentStore(
    config,
    'replyflow conversations start writes the start',
    logger,
  );
  try {
    const registry = await loadBots(config.botsDir);
    const answer = await startWithPolicy(
      { store, registry, locations: config.locations, now: Date.now, logger },
      { bot, phone: options.phone, input, key: options.key, location: options.location },
    );
    if (answer.status === 202) {
      process.stdout.write(`${JSON.stringify(answer.body, null, 2)}\n`);
      return 0;
    }
    const { error, message } = answer.body;
    process.stderr.write(`error ${answer.status}: ${error}${message ? `: ${message}` : ''}\n`);
    return 1;
  } finally {
    await close();
  }
}
