// The system under test, alone in its own process: `replyflow` (web + worker + sender +
// scheduler, started from env exactly as `replyflow start` does) or `baseline` (the naive
// handler). Started by `index.ts` (and by bench/footprint), which pass the settings in BENCH_*
// variables: BENCH_EXTRA_BOTS, a JSON array of bot module URLs registered next to the echo bot;
// BENCH_KEEP_KEYS=1, leave the keys on close (the caller throws its Redis away).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { loadConfig } from '../../src/app/config.ts';
import { startReplyflow } from '../../src/app/start-replyflow.ts';
import { createBotRegistry } from '../../src/bot/bot-registry.ts';
import type { Bot } from '../../src/bot/define-bot.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { createMessagingClients } from '../../src/provider/create-messaging-clients.ts';
import { serveParent } from '../lib/child.ts';
import { deleteKeys } from '../lib/redis.ts';
import { baselineKey, createBaselineApp } from './baseline-app.ts';
import { echoBot, turnsOf } from './echo-bot.ts';
import { benchEnv, location, webhookPath, webhookSecret } from './wiring.ts';

// Counts every command this process sends to Redis (pipelined ones included; pub/sub
// messages received are not commands): the round trips a turn costs, whatever the machine.
let redisCommands = 0;
const sendCommand = Redis.prototype.sendCommand;
Redis.prototype.sendCommand = function (this: Redis, ...args: Parameters<Redis['sendCommand']>) {
  redisCommands++;
  return sendCommand.apply(this, args);
};

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
} else if (variant === 'baseline') {
  const clients = createMessagingClients(config);
  const server = createServer(
    createBaselineApp({ redis, prefix, client: clients.get(location)!, location, webhookSecret }),
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
  throw new Error(`unknown variant '${variant}': replyflow, baseline or replyflow-web`);
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
