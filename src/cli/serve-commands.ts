import type { Command } from 'commander';
import { loadConfig } from '../app/config.ts';
import { startDev } from '../app/start-dev.ts';
import {
  type RunningReplyflow,
  type StartOptions,
  startReplyflow,
} from '../app/start-replyflow.ts';
import { formatLintTable } from '../bot/format-lint-table.ts';
import { lintBotTexts } from '../bot/lint-bot-texts.ts';
import { ConfigError, ReplyflowError } from '../errors.ts';
import { createLogger } from '../observability/logger.ts';

type Mode = 'start' | 'web' | 'worker' | 'dev';

/** The roles each serving command runs (`start` and `dev` run them all). */
const rolesOf: Partial<Record<Mode, StartOptions['roles']>> = {
  web: { web: true, worker: false, sender: false, scheduler: false },
  worker: { web: false },
};

/** `replyflow start`, `replyflow web`, `replyflow worker` and `replyflow dev`. */
export function registerServeCommands(program: Command): void {
  program
    .command('start')
    .description('Run the webhook server, the conversation workers and the sender in one process')
    .action(() => run('start'));
  program
    .command('web')
    .description(
      'Run the webhook server only: notifications are stored and acknowledged, and `replyflow worker` processes answer them (needs REDIS_URL)',
    )
    .action(() => run('web'));
  program
    .command('worker')
    .description(
      'Run conversation workers, the timer scheduler and the sender only (scale-out; no HTTP server; needs REDIS_URL)',
    )
    .action(() => run('worker'));
  program
    .command('dev')
    .description(
      'Run the bots on the embedded defaults: memory store and the built-in emulator, with the dev phone',
    )
    .action(() => run('dev'));
}

/** Expected failures (bad config, bad bots) print their message and exit 1, without a stack. */
async function run(mode: Mode): Promise<void> {
  try {
    await serve(mode);
  } catch (error) {
    if (!(error instanceof ReplyflowError)) throw error;
    process.stderr.write(`replyflow ${mode}: ${error.code}: ${error.message}\n`);
    process.exit(1);
  }
}

async function serve(mode: Mode): Promise<void> {
  const config = await loadConfig(process.env);
  if ((mode === 'web' || mode === 'worker') && !config.redisUrl) {
    // The in-memory store lives and dies with one process: the other half would never see it.
    throw new ConfigError(
      `replyflow ${mode} shares its work with other processes through Redis: set REDIS_URL (redis://127.0.0.1:6379), or run \`replyflow start\` to do everything in one process`,
    );
  }
  const logger = createLogger({ level: config.logLevel });
  // Listen for signals from the start: a stop during start-up waits for it, then closes cleanly.
  let started: Promise<RunningReplyflow | undefined> = Promise.resolve(undefined);
  const stop = async (signal: string) => {
    logger.info({ signal }, 'stopping');
    // close() keeps within REPLYFLOW_STOP_TIMEOUT; this only backs it up.
    setTimeout(() => process.exit(0), config.stopTimeoutMs ?? 10_000).unref();
    const running = await started.catch(() => undefined);
    await running?.close().catch((error: unknown) => logger.warn({ err: error }, 'stop failed'));
    logger.info('stopped');
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  started =
    mode === 'dev'
      ? startDev(config, logger).then(announce)
      : startReplyflow({
          config,
          logger,
          roles: rolesOf[mode],
        });
  await started;
}

function announce(dev: Awaited<ReturnType<typeof startDev>>): RunningReplyflow {
  console.log(
    `\n  replyflow dev is running with bots: ${[...dev.registry.bots.keys()].join(', ') || '(none)'}`,
  );
  // The texts' cost, readable here; `start` has it in the JSON log only.
  console.log(`\n${formatLintTable(lintBotTexts(dev.registry.bots.values()))}\n`);
  console.log(`  dev phone:  ${dev.url}/dev`);
  if (dev.emulated)
    console.log(`  emulator:   ${dev.url}/v1 (key pair dev:dev, location 'default')\n`);
  return dev;
}
