import type { Command } from 'commander';
import { type CancelAnswer, cancelStartByKey } from '../admin/cancel-start-by-key.ts';
import { type StartAnswer, startWithPolicy } from '../admin/start-with-policy.ts';
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
  at?: string;
  relativeTo?: string;
  offset?: string;
  window?: string;
  sendIfWithin?: string;
  timeZone?: string;
}

/**
 * `replyflow conversations start <bot> --phone N --input JSON [--key K] [--at ISO |
 * --relative-to FIELD --offset -24h] [--window 09:00-19:00] [--send-if-within 6h]
 * [--time-zone Z]` and `replyflow conversations cancel <key>`: what `POST /admin/conversations`
 * and `DELETE /admin/conversations/scheduled/:key` do, against the store the environment names
 * (REDIS_URL or REDIS_CLUSTER_NODES), for scripts and cron jobs. Prints the answer as JSON;
 * exits 1 on a refusal.
 */
export function registerConversationsCommand(program: Command): void {
  const conversations = program
    .command('conversations')
    .description(
      'Start conversations, or cancel a keyed start, in the running deployment (needs REDIS_URL or REDIS_CLUSTER_NODES)',
    );
  conversations
    .command('start <bot>')
    .description("Start a bot's conversation with a phone, as POST /admin/conversations does")
    .requiredOption('--phone <phone>', 'the recipient (+33 6 12 34 56 78)')
    .option('--input <json>', "the bot's input, as JSON (checked against the bot's input schema)")
    .option(
      '--key <key>',
      'durable idempotency key: the same start again starts nothing new, a new date reschedules (needed by the options below)',
    )
    .option('--at <time>', 'start then: an ISO instant, or a wall time in --time-zone')
    .option('--relative-to <field>', 'start relative to a date of the input (input.at)')
    .option('--offset <offset>', 'from --relative-to: -24h, +30m (durations), -1d, -2w (calendar)')
    .option('--window <hours>', 'local hours the start may fire in, such as 09:00-19:00')
    .option(
      '--send-if-within <duration>',
      'a time already past starts now when at most this late (6h); default: skipped past_due',
    )
    .option(
      '--time-zone <zone>',
      "IANA zone of wall times and the window (default: the location's quiet hours' zone, else UTC)",
    )
    .option('--location <name>', 'the configured location (default: the only one)')
    .action((bot: string, options: StartOptions) => run(() => start(bot, options)));
  conversations
    .command('cancel <key>')
    .description(
      'Cancel a start given with --key that has not fired, as DELETE /admin/conversations/scheduled/:key does',
    )
    .option('--location <name>', 'the configured location (default: the only one)')
    .action((key: string, options: { location?: string }) => run(() => cancel(key, options)));
}

async function run(command: () => Promise<number>): Promise<void> {
  try {
    process.exitCode = await command();
  } catch (error) {
    if (!(error instanceof ReplyflowError)) throw error;
    process.stderr.write(`error ${error.code}: ${error.message}\n`);
    process.exitCode = 1;
  }
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
      {
        bot,
        phone: options.phone,
        input,
        key: options.key,
        location: options.location,
        at: options.at,
        relativeTo: options.relativeTo,
        offset: options.offset,
        deliveryWindow: options.window,
        sendIfWithin: options.sendIfWithin,
        timeZone: options.timeZone,
      },
    );
    return printAnswer(answer);
  } finally {
    await close();
  }
}

async function cancel(key: string, options: { location?: string }): Promise<number> {
  const config = await loadConfig(process.env);
  const logger = createLogger({ level: config.logLevel === 'info' ? 'warn' : config.logLevel });
  const { store, close } = openDeploymentStore(
    config,
    'replyflow conversations cancel records the cancel',
    logger,
  );
  try {
    const answer = await cancelStartByKey(
      { store, locations: config.locations, now: Date.now },
      { key, location: options.location },
    );
    return printAnswer(answer);
  } finally {
    await close();
  }
}

/** A success on stdout as JSON (exit 0); a refusal on stderr as one line (exit 1). */
function printAnswer(answer: StartAnswer | CancelAnswer): number {
  if (answer.status === 200 || answer.status === 202) {
    process.stdout.write(`${JSON.stringify(answer.body, null, 2)}\n`);
    return 0;
  }
  const { error, message } = answer.body;
  process.stderr.write(`error ${answer.status}: ${error}${message ? `: ${message}` : ''}\n`);
  return 1;
}
