import { type Command, InvalidArgumentError, Option } from 'commander';
import type { startDev } from '../app/start-dev.ts';
import type { RunningReplyflow, StartOptions } from '../app/start-replyflow.ts';
import { exitReserveMs } from '../app/stop-gracefully.ts';
import { ConfigError, ReplyflowError } from '../errors.ts';

/** What `dev` prints the texts' lint table with, loaded with the server's modules. */
type LintModules = typeof import('../bot/format-lint-table.ts') &
  typeof import('../bot/lint-bot-texts.ts');

type Mode = 'start' | 'web' | 'worker' | 'dev';

interface ServeOptions {
  port?: number;
  host?: string;
  /** `dev` only: `--allow-host`, repeated. */
  allowHost?: string[];
}

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
    .addOption(portOption())
    .addOption(new Option('--host <host>', 'interface to listen on').default('0.0.0.0'))
    .action((options: ServeOptions) => run('start', options));
  program
    .command('web')
    .description(
      'Run the webhook server only: notifications are stored and acknowledged, and `replyflow worker` processes answer them (needs REDIS_URL or REDIS_CLUSTER_NODES)',
    )
    .addOption(portOption())
    .addOption(new Option('--host <host>', 'interface to listen on').default('0.0.0.0'))
    .action((options: ServeOptions) => run('web', options));
  program
    .command('worker')
    .description(
      'Run conversation workers, the timer scheduler and the sender only (scale-out; no HTTP server; needs REDIS_URL or REDIS_CLUSTER_NODES)',
    )
    .action(() => run('worker', {}));
  program
    .command('dev')
    .description(
      'Run the bots on the embedded defaults: memory store and the built-in emulator, with the dev phone; bots/ is reloaded on every change',
    )
    .addOption(portOption())
    .addOption(
      new Option(
        '--host <host>',
        'interface to listen on; anything but loopback lets the network drive the bots and read every message',
      ).default('127.0.0.1'),
    )
    .addOption(
      new Option(
        '--allow-host <name>',
        'answer requests addressed to this host name too (besides localhost, 127.0.0.1 and ::1); repeat for several',
      ).argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]),
    )
    .action((options: ServeOptions) => run('dev', options));
}

function portOption(): Option {
  return new Option('--port <n>', 'port to listen on (default: $PORT, or 3000)').argParser(
    (value) => {
      const parsed = Number(value);
      if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65_535) {
        throw new InvalidArgumentError('a port is an integer from 0 to 65535');
      }
      return parsed;
    },
  );
}

/** Expected failures (bad config, bad bots, a port in use) print one line and exit 1, without a stack. */
async function run(mode: Mode, options: ServeOptions): Promise<void> {
  try {
    await serve(mode, options);
  } catch (error) {
    if (!(error instanceof ReplyflowError)) throw error;
    process.stderr.write(`replyflow ${mode}: ${error.code}: ${error.message}\n`);
    process.exit(1);
  }
}

async function serve(mode: Mode, options: ServeOptions): Promise<void> {
  // Loaded here, so `--help` and the other commands do not pay for the server's modules.
  const [
    { loadConfig },
    { startDev },
    { startReplyflow },
    { useColor },
    { isLoopback },
    { createLogger },
    formatLint,
    lintTexts,
  ] = await Promise.all([
    import('../app/config.ts'),
    import('../app/start-dev.ts'),
    import('../app/start-replyflow.ts'),
    import('../app/use-color.ts'),
    import('../emulator/is-loopback.ts'),
    import('../observability/logger.ts'),
    import('../bot/format-lint-table.ts'),
    import('../bot/lint-bot-texts.ts'),
  ]);
  const loaded = await loadConfig(process.env);
  const config = options.port === undefined ? loaded : { ...loaded, port: options.port };
  if ((mode === 'web' || mode === 'worker') && !config.redisUrl && !config.redisClusterNodes) {
    // The in-memory store lives and dies with one process: the other half would never see it.
    throw new ConfigError(
      `replyflow ${mode} shares its work with other processes through Redis: set REDIS_URL (redis://127.0.0.1:6379) or REDIS_CLUSTER_NODES, or run \`replyflow start\` to do everything in one process`,
    );
  }
  // Dev is read by a person: pino-pretty lines. The others feed log collectors: JSON.
  const logger = createLogger({
    level: config.logLevel,
    pretty: mode === 'dev' ? { colorize: useColor(process.stdout) } : undefined,
  });
  if (mode === 'dev' && options.host && !isLoopback(options.host)) {
    logger.warn(
      { host: options.host },
      'dev is listening beyond this machine: anyone on the network can start conversations, read every message through /_emulator and send as any handset',
    );
  }
  // Listen for signals from the start: a stop during start-up waits for it, then closes cleanly.
  let started: Promise<RunningReplyflow | undefined> = Promise.resolve(undefined);
  // A start still waiting (webhooks not registered while the store is down) gives up on a stop.
  const stopping = new AbortController();
  const stop = async (signal: string) => {
    logger.info({ signal }, 'stopping');
    // close() keeps within REPLYFLOW_STOP_TIMEOUT less the exit's reserve; this only backs it
    // up, half-way into that reserve (it fired at the timeout itself, and the exit then ended
    // past it: 5,118 ms of 5 s on a loaded machine), so the process is gone within the timeout.
    const timeoutMs = config.stopTimeoutMs ?? 10_000;
    setTimeout(() => process.exit(0), timeoutMs - exitReserveMs(timeoutMs) / 2).unref();
    stopping.abort();
    const running = await started.catch(() => undefined);
    await running?.close().catch((error: unknown) => logger.warn({ err: error }, 'stop failed'));
    logger.info('stopped');
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  started =
    mode === 'dev'
      ? startDev(config, logger, { host: options.host, allowedHosts: options.allowHost }).then(
          (dev) => announce(dev, { ...formatLint, ...lintTexts }),
        )
      : startReplyflow({
          config,
          logger,
          roles: rolesOf[mode],
          host: options.host,
          signal: stopping.signal,
        });
  await started;
}

function announce(
  dev: Awaited<ReturnType<typeof startDev>>,
  { formatLintTable, lintBotTexts }: LintModules,
): RunningReplyflow {
  console.log(
    `\n  replyflow dev is running with bots: ${[...dev.registry.bots.keys()].join(', ') || '(none)'}`,
  );
  // The texts' cost, readable here; `start` has it in the JSON log only.
  console.log(`\n${formatLintTable(lintBotTexts(dev.registry.bots.values()))}\n`);
  console.log(`  dev phone:  ${dev.url}/dev`);
  if (dev.emulated)
    console.log(`  emulator:   ${dev.url}/v1 (key pair dev:dev, location 'default')`);
  console.log(`  bots:       ${dev.botsDir} (reloaded on every change)\n`);
  return dev;
}
