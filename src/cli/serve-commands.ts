import type { Command } from 'commander';
import { loadConfig } from '../app/config.ts';
import { startDev } from '../app/start-dev.ts';
import { type RunningReplyflow, startReplyflow } from '../app/start-replyflow.ts';
import { ReplyflowError } from '../errors.ts';
import { createLogger } from '../observability/logger.ts';

/** `replyflow start`, `replyflow worker` and `replyflow dev`. */
export function registerServeCommands(program: Command): void {
  program
    .command('start')
    .description('Run the webhook server, the conversation workers and the sender in one process')
    .action(() => run('start'));
  program
    .command('worker')
    .description(
      'Run conversation workers, the timer scheduler and the sender only (scale-out; no HTTP server)',
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
async function run(mode: 'start' | 'worker' | 'dev'): Promise<void> {
  try {
    await serve(mode);
  } catch (error) {
    if (!(error instanceof ReplyflowError)) throw error;
    process.stderr.write(`replyflow ${mode}: ${error.code}: ${error.message}\n`);
    process.exit(1);
  }
}

async function serve(mode: 'start' | 'worker' | 'dev'): Promise<void> {
  const config = await loadConfig(process.env);
  const logger = createLogger({ level: config.logLevel });
  // Listen for signals from the start: a stop during start-up waits for it, then closes cleanly.
  let started: Promise<RunningReplyflow | undefined> = Promise.resolve(undefined);
  const stop = async (signal: string) => {
    logger.info({ signal }, 'stopping');
    const running = await started.catch(() => undefined);
    await running?.close();
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
          roles: mode === 'worker' ? { web: false } : undefined,
        });
  await started;
}

function announce(dev: Awaited<ReturnType<typeof startDev>>): RunningReplyflow {
  console.log(
    `\n  replyflow dev is running with bots: ${[...dev.registry.bots.keys()].join(', ') || '(none)'}`,
  );
  console.log(`  dev phone:  ${dev.url}/dev`);
  if (dev.emulated)
    console.log(`  emulator:   ${dev.url}/v1 (key pair dev:dev, location 'default')\n`);
  return dev;
}
