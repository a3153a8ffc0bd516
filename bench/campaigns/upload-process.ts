// The admin API in a process of its own, as `replyflow start` serves it (the library loaded
// whole, express, a Redis store), for `upload-phase.ts`: `start` listens on loopback and
// answers its URL and RSS, then samples its memory until `measure`. A bench helper, not a
// server to run.
import { serveParent } from '../lib/child.ts';
import { startMemoryPeak } from '../timers/memory-peak.ts';

const startMiB = process.memoryUsage().rss / 2 ** 20;

export interface UploadMeasure {
  /** RSS at the process's start (node, tsx, this file), MiB. */
  startMiB: number;
  memory: ReturnType<ReturnType<typeof startMemoryPeak>['stop']>;
}

let stop: (() => Promise<void>) | undefined;
let peak: ReturnType<typeof startMemoryPeak> | undefined;

async function start(redisUrl: string, adminToken: string): Promise<{ url: string }> {
  const [
    { Redis },
    { pino },
    { setup },
    { createAdminRouter },
    { createHardenedServer },
    { createHttpApp },
    { listenOn },
    { createBotRegistry },
    { systemClock },
    { createRedisStore },
    { defineBot },
  ] = await Promise.all([
    import('ioredis'),
    import('pino'),
    import('xstate'),
    import('../../src/admin/create-admin-router.ts'),
    import('../../src/app/create-hardened-server.ts'),
    import('../../src/app/create-http-app.ts'),
    import('../../src/app/listen-on.ts'),
    import('../../src/bot/bot-registry.ts'),
    import('../../src/scheduler/clock.ts'),
    import('../../src/store/redis/create-redis-store.ts'),
    // What a bots folder loads.
    import('../../src/index.ts'),
  ]);
  const reminder = defineBot({
    id: 'reminder',
    machine: setup({}).createMachine({ initial: 'done', states: { done: { type: 'final' } } }),
  });
  const redis = new Redis(redisUrl);
  const store = createRedisStore({ redis, prefix: 'rf:' });
  const logger = pino({ level: 'silent' });
  const server = createHardenedServer(
    createHttpApp({
      store,
      clock: systemClock,
      logger,
      secrets: new Map(),
      extra: [
        createAdminRouter({
          store,
          registry: createBotRegistry([{ bot: reminder, file: 'reminder.ts' }]),
          clock: systemClock,
          config: {
            locations: [{ name: 'paris', defaultCountry: 'FR', rateLimitPerSecond: 20 } as never],
            adminToken,
          },
          logger,
        }),
      ],
    }),
  );
  const url = await listenOn(server, 0, '127.0.0.1');
  stop = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await store.close();
    redis.disconnect();
  };
  // From here: the server is up, waiting for the upload.
  peak = startMemoryPeak();
  return { url };
}

serveParent(
  {
    start: (message) => start(String(message.redisUrl), String(message.adminToken)),
    measure: (): UploadMeasure => ({ startMiB, memory: peak!.stop() }),
  },
  async () => {
    await stop?.();
  },
);
process.send?.({ type: 'ready' });
