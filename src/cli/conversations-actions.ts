import { type CancelAnswer, cancelStartByKey } from '../admin/cancel-start-by-key.ts';
import { type StartAnswer, startWithPolicy } from '../admin/start-with-policy.ts';
import { loadConfig } from '../app/config.ts';
import { loadBots } from '../bot/load-bots.ts';
import { ConfigError, ReplyflowError } from '../errors.ts';
import { createLogger } from '../observability/logger.ts';
import { openDeploymentStore } from './open-deployment-store.ts';

export interface StartOptions {
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

/** `replyflow conversations start`, loaded when it runs (conversations-command.ts defines its options). */
export function startConversation(bot: string, options: StartOptions): Promise<void> {
  return run(() => start(bot, options));
}

/** `replyflow conversations cancel`. */
export function cancelConversation(key: string, options: { location?: string }): Promise<void> {
  return run(() => cancel(key, options));
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
