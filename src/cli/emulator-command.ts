import { type Command, InvalidArgumentError, Option } from 'commander';
import type { EmulatorKeyPair, EmulatorOptions } from '../emulator/index.ts';

interface EmulatorCommandOptions {
  port: number;
  host: string;
  keyPair: EmulatorKeyPair[];
  timeScale?: number;
  rateLimit?: number;
  replyType?: 'sms.status' | 'sms.reply';
  unitPrice?: number;
  balance?: number;
  shortCode?: string;
  allowRemoteWebhooks?: boolean;
  allowPrivateWebhooks?: boolean;
  allowHost?: string[];
  logLevel: string;
}

const defaultKeyPair: EmulatorKeyPair = { id: 'dev', secret: 'dev', location: 'default' };

/**
 * `replyflow emulator`: the local emulator of the messaging service, for trying the API by hand
 * and for pointing a replyflow server or any other client at it. See src/emulator/README.md.
 */
export function registerEmulatorCommand(program: Command): void {
  program
    .command('emulator')
    .description('Run the local emulator of the messaging service (the /v1 API plus /_emulator)')
    // Each default is given to commander once, so `--help` shows it once: `(default: …)`.
    .addOption(
      new Option('--port <n>', 'port to listen on (0 picks a free one)')
        .default(4010)
        .argParser(port),
    )
    .addOption(
      new Option(
        '--host <host>',
        'interface to listen on; anything but loopback is reachable from the network',
      ).default('127.0.0.1'),
    )
    .addOption(
      new Option(
        '--key-pair <id:secret:location>',
        'an API key pair and its location; repeat for several',
      )
        .default([] as EmulatorKeyPair[], 'dev:dev:default')
        .argParser(collectKeyPair),
    )
    .addOption(
      new Option('--time-scale <n>', 'multiply every delay by n (0.01 runs 100 times faster)')
        .default(1)
        .argParser(positive),
    )
    .addOption(
      new Option('--rate-limit <n>', "requests per second per key pair, or 'none'")
        .default(100)
        .argParser(rateLimit),
    )
    .addOption(
      new Option(
        '--reply-type <type>',
        'type of the reply envelope (sms.status as the spec sample)',
      )
        .choices(['sms.status', 'sms.reply'])
        .default('sms.status'),
    )
    .addOption(
      new Option('--unit-price <n>', 'price of one SMS part').default(0.05).argParser(nonNegative),
    )
    .addOption(
      new Option('--balance <n>', 'starting balance of every location')
        .default(1000)
        .argParser(nonNegative),
    )
    .addOption(
      new Option('--short-code <code>', "the default sender, selected by an empty 'from'").default(
        '38200',
      ),
    )
    .option(
      '--allow-remote-webhooks',
      'accept webhook URLs outside this machine (otherwise only 127.0.0.1, ::1 and localhost)',
    )
    .option(
      '--allow-private-webhooks',
      'with --host beyond loopback, still accept webhook URLs on loopback, private and link-local addresses (a container network)',
    )
    .addOption(
      new Option(
        '--allow-host <name>',
        'answer requests addressed to this host name too (besides localhost, 127.0.0.1 and ::1): /_emulator, and /v1 on loopback or with dev:dev; repeat for several',
      ).argParser(collectHost),
    )
    .option('--log-level <level>', 'pino log level (silent to hide the log)', 'info')
    .action((options: EmulatorCommandOptions) => runEmulator(options));
}

async function runEmulator(options: EmulatorCommandOptions): Promise<void> {
  // Loaded here, so other commands do not pay for the emulator's start-up.
  const [{ startEmulator }, { createLogger }, { isLoopback }] = await Promise.all([
    import('../emulator/index.ts'),
    import('../observability/logger.ts'),
    import('../emulator/is-loopback.ts'),
  ]);
  if (!isLoopback(options.host)) {
    process.stderr.write(
      `replyflow emulator: warning: --host ${options.host} is not loopback: anyone who can reach it can read every message and send as any handset\n`,
    );
  }
  const keyPairs = options.keyPair.length > 0 ? options.keyPair : [defaultKeyPair];
  const emulatorOptions: EmulatorOptions = {
    port: options.port,
    host: options.host,
    keyPairs,
    timeScale: options.timeScale,
    rateLimitPerSecond: options.rateLimit,
    replyEnvelopeType: options.replyType,
    unitPrice: options.unitPrice,
    initialBalance: options.balance,
    shortCode: options.shortCode,
    allowRemoteWebhooks: options.allowRemoteWebhooks === true,
    allowPrivateWebhooks: options.allowPrivateWebhooks === true,
    allowedHosts: options.allowHost,
    logger: createLogger({ level: options.logLevel }),
  };
  let emulator: Awaited<ReturnType<typeof startEmulator>>;
  try {
    emulator = await startEmulator(emulatorOptions);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const hint =
      code === 'EADDRINUSE'
        ? `port ${options.port} is in use: pass another --port (0 picks a free one)`
        : code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND'
          ? `cannot listen on ${options.host}: it is not an address of this machine (--host)`
          : String((error as Error).message);
    process.stderr.write(`replyflow emulator: ${hint}\n`);
    process.exit(1);
  }
  const [example = defaultKeyPair] = keyPairs;
  process.stdout.write(
    [
      `replyflow emulator listening on http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${emulator.port}`,
      `  base URL:  ${emulator.baseUrl}`,
      `  control:   ${emulator.url}/_emulator (messages, replies, outcomes, faults, deliveries, events)`,
      `  key pairs: ${keyPairs.map((pair) => `${pair.id} (location ${pair.location})`).join(', ')}`,
      '  try:',
      `    curl -s ${emulator.baseUrl}/sms -H 'X-API-KEY-ID: ${example.id}' -H 'X-API-KEY-SECRET: ${example.secret}' -H 'Content-Type: application/json' -d '{"to":"33612345678","body":"Hello"}'`,
      '',
    ].join('\n'),
  );
  const stop = async () => {
    await emulator.close();
    process.stdout.write('replyflow emulator stopped\n');
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

function collectHost(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function collectKeyPair(value: string, previous: EmulatorKeyPair[]): EmulatorKeyPair[] {
  const [id = '', secret = '', ...location] = value.split(':');
  if (!id || !secret || location.join(':') === '') {
    throw new InvalidArgumentError("write it as ID:SECRET:LOCATION, e.g. 'k:s:paris'");
  }
  return [...previous, { id, secret, location: location.join(':') }];
}

function port(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65_535) {
    throw new InvalidArgumentError('a port is an integer from 0 to 65535');
  }
  return parsed;
}

function positive(value: string): number {
  const parsed = Number(value);
  if (!(parsed > 0) || !Number.isFinite(parsed))
    throw new InvalidArgumentError('a positive number');
  return parsed;
}

function nonNegative(value: string): number {
  const parsed = Number(value);
  if (!(parsed >= 0) || !Number.isFinite(parsed))
    throw new InvalidArgumentError('a number, 0 or more');
  return parsed;
}

function rateLimit(value: string): number {
  return value === 'none' ? Number.POSITIVE_INFINITY : positive(value);
}
