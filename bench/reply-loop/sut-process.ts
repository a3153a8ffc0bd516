// The system under test, alone in its own process: `replyflow` (web + worker + sender +
// scheduler, started from env exactly as `replyflow start` does), `peer` (the lean hand-written
// handler of issue 26: plain undici request to POST /sms) or `baseline-client` (the naive
// handler sending through replyflow's messaging client; `baseline` is its older name). Started by `index.ts` (and by bench/footprint), which pass the settings in BENCH_*
// variables: BENCH_EXTRA_BOTS, a JSON array of bot module URLs registered next to the echo bot;
// BENCH_KEEP_KEYS=1, leave the keys on close (the caller throws its Redis away);
// BENCH_COMMAND_TALLY=1, an analysis run: on close, print the commands this process sent by name
// (scripts by their name) and, from Redis's SLOWLOG set to log everything, the mean time of each
// (inner commands of scripts listed apart). Logging every command costs Redis CPU: never
// compare a tally run's figures with a normal run's.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { loadConfig } from '../../src/app/config.ts';
import { startReplyflow } from '../../src/app/start-replyflow.ts';
import { createBotRegistry } from '../../src/bot/bot-registry.ts';
import type { Bot } from '../../src/bot/define-bot.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { createMessagingClients } from '../../src/provider/create-messaging-clients.ts';
import { storeScriptNames } from '../../src/store/redis/store-scripts.ts';
import { serveParent } from '../lib/child.ts';
import { deleteKeys } from '../lib/redis.ts';
import { baselineKey, createBaselineApp } from './baseline-app.ts';
import { echoBot, turnsOf } from './echo-bot.ts';
import { createPeerApp } from './peer-app.ts';
import { benchEnv, keyPair, location, webhookPath, webhookSecret } from './wiring.ts';

// Counts every command this process sends to Redis (pipelined ones included; pub/sub
// messages received are not commands): the round trips a turn costs, whatever the machine.
let redisCommands = 0;
const tallying = process.env.BENCH_COMMAND_TALLY === '1';
const tally = new Map<string, number>();
const scriptNames = new Map<string, string>();
const sendCommand = Redis.prototype.sendCommand;
Redis.prototype.sendCommand = function (this: Redis, ...args: Parameters<Redis['sendCommand']>) {
  redisCommands++;
  if (tallying) {
    const name = commandName(this, args[0] as unknown as { name: string; args: unknown[] });
    tally.set(name, (tally.get(name) ?? 0) + 1);
  }
  return sendCommand.apply(this, args);
};

/**
 * A command's name; a script's (FCALL of its function, or EVALSHA of its SHA1) is its file's
 * base (`commit-step`), or the name it was defined with on this connection.
 */
function commandName(connection: Redis, command: { name: string; args: unknown[] }): string {
  if (command.name !== 'evalsha' && command.name !== 'fcall') return command.name;
  const id = String(command.args[0]);
  let name = scriptNames.get(id) ?? storeScriptNames.get(id);
  if (!name) {
    const scripts = (connection as unknown as { scriptsSet?: Record<string, { sha: string }> })
      .scriptsSet;
    name = Object.entries(scripts ?? {}).find(([, script]) => script.sha === id)?.[0] ?? id;
    scriptNames.set(id, name);
  }
  return name;
}

/** Prints the tally and each command's mean time in Redis, read from its SLOWLOG. */
async function printTally(connection: Redis): Promise<void> {
  const log = (await connection.call('SLOWLOG', 'GET', '-1')) as Array<
    [number, number, number, string[]]
  >;
  const timed = new Map<string, { calls: number; micros: number }>();
  for (const [, , micros, [name = '?', sha = '']] of log) {
    const key = /^(evalsha|fcall)$/i.test(name)
      ? (scriptNames.get(sha) ?? storeScriptNames.get(sha) ?? sha)
      : name.toLowerCase();
    const entry = timed.get(key) ?? { calls: 0, micros: 0 };
    entry.calls++;
    entry.micros += micros;
    timed.set(key, entry);
  }
  const rows = [...timed].sort((a, b) => b[1].micros - a[1].micros);
  console.error(`Redis commands sent by the ${variant} process:`);
  for (const [name, count] of [...tally].sort((a, b) => b[1] - a[1])) {
    console.error(`  ${name.padEnd(28)} ${String(count).padStart(8)}`);
  }
  console.error('In Redis (SLOWLOG, every command; scripts include their inner commands):');
  for (const [name, { calls, micros }] of rows) {
    console.error(
      `  ${name.padEnd(28)} ${String(calls).padStart(8)} calls ${(micros / calls).toFixed(1).padStart(7)} µs each`,
    );
  }
}

const variant = process.argv[2];
const redisUrl = required('BENCH_REDIS_URL');
const prefix = required('BENCH_PREFIX');
const overrides = JSON.parse(process.env.BENCH_REPLYFLOW_ENV ?? '{}') as Record<string, string>;
const config = await loadConfig(
  benchEnv(required('BENCH_PROVIDER_URL'), redisUrl, prefix, overrides),
);
const logger = createLogger({ level: config.logLevel });
// The bench's own connection: the baseline's store, and the cleanup of the keys afterwards.
const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
if (tallying) {
  await redis.config('SET', 'slowlog-log-slower-than', '0');
  await redis.config('SET', 'slowlog-max-len', '1000000');
}

// Bots of other benches (the footprint's conversation that ends), loaded as `replyflow start`
// loads a bots folder: each module's default export.
const extraBots = await Promise.all(
  (JSON.parse(process.env.BENCH_EXTRA_BOTS ?? '[]') as string[]).map(async (file) => ({
    bot: ((await import(file)) as { default: Bot }).default,
    file,
  })),
);

let url: string;
let turnsOfPhone: (phone: string) => Promise<number | null>;
let stop: () => Promise<void>;

if (variant === 'replyflow' || variant === 'replyflow-web') {
  // Opens its own store, limiter and clients from the config, as `replyflow start` does; only
  // the bot registry is given (the bench's echo bot instead of a bots folder).
  const app = await startReplyflow({
    config,
    logger,
    registry: createBotRegistry([
      { bot: echoBot, file: 'bench/reply-loop/echo-bot.ts' },
      ...extraBots,
    ]),
    ...(variant === 'replyflow-web'
      ? { roles: { web: true, worker: false, sender: false, scheduler: false } }
      : {}),
  });
  url = app.url!;
  turnsOfPhone = async (phone) =>
    turnsOf((await app.store.getConversation({ location, phone }))?.snapshot);
  stop = () => app.close();
} else if (variant === 'baseline' || variant === 'baseline-client' || variant === 'peer') {
  // The peer sends with a plain undici request: no messaging client at all.
  const clients: ReturnType<typeof createMessagingClients> =
    variant === 'peer' ? new Map() : createMessagingClients(config);
  const server = createServer(
    variant === 'peer'
      ? createPeerApp({
          redis,
          prefix,
          providerUrl: required('BENCH_PROVIDER_URL'),
          keyPair,
          location,
          webhookSecret,
        })
      : createBaselineApp({
          redis,
          prefix,
          client: clients.get(location)!,
          location,
          webhookSecret,
        }),
  );
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  turnsOfPhone = async (phone) => {
    const stored = await redis.get(baselineKey(prefix, location, phone));
    return stored ? turnsOf(JSON.parse(stored)) : null;
  };
  stop = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await Promise.all([...clients.values()].map((client) => client.close()));
  };
} else {
  throw new Error(
    `unknown variant '${variant}': replyflow, peer, baseline-client (or baseline) or replyflow-web`,
  );
}

serveParent(
  {
    turns: async (message) => ({ turns: await turnsOfPhone(String(message.phone)) }),
    memory: () => ({ rss: process.memoryUsage().rss }),
    cpu: () => {
      const { user, system } = process.cpuUsage();
      return { micros: user + system, redisCommands };
    },
  },
  async () => {
    if (tallying) await printTally(redis);
    await stop();
    if (process.env.BENCH_KEEP_KEYS !== '1') await deleteKeys(redis, prefix);
    redis.disconnect();
  },
);
process.send?.({ type: 'ready', url, webhookUrl: `${url}${webhookPath}`, pid: process.pid });

function required(name: string): string {
  const value = process.env[name];
  if (!value)
    throw new Error(`${name} is not set (this file is started by bench/reply-loop/index.ts)`);
  return value;
}
