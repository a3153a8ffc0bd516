import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import survey from '../../bots/survey.ts';
import { createAdminRouter } from '../../src/admin/create-admin-router.ts';
import type { LocationConfig } from '../../src/app/config.ts';
import { createHttpApp } from '../../src/app/create-http-app.ts';
import { createBotRegistry } from '../../src/bot/bot-registry.ts';
import { createWorker } from '../../src/conversation/create-worker.ts';
import { systemClock } from '../../src/scheduler/clock.ts';
import { activeCounters } from '../../src/stats/counter-names.ts';
import { createRedisStore } from '../../src/store/redis/create-redis-store.ts';
import { redisOptionsForStore } from '../../src/store/redis/redis-options-for-store.ts';
import type { IngestItem } from '../../src/store/store.ts';
import { tallyActive } from '../../src/store/store-sample.ts';
import type { Benchmark } from '../lib/benchmark.ts';
import { machineInfo } from '../lib/machine.ts';
import { openFreshRedis, randomPrefix } from '../lib/redis.ts';
import { fixed, markdownTable, median, percentile } from '../lib/stats.ts';

const usage = `dashboard [--conversations 1000000] [--requests 200] [--batch 2000]
  --conversations N  survey conversations started through the engine (worker, real commits)
  --requests N       GET /admin/api/overview timed at each size (after 20 not counted)
  --batch N          start events per ingest call while loading
  --rounds N         rounds of requests, alternating the loaded and the empty store (medians)`;

const benchmark: Benchmark = {
  name: 'dashboard',
  description:
    "The dashboard's first screen (GET /admin/api/overview) with 1,000,000 conversations in Redis against the same on an empty store, and against a hand-written count of the active conversations from their records (SCAN)",
  run,
};
export default benchmark;

const location = 'paris';
const token = '9f2c41d7b0e85a3f6c19d4e7a2b80f5c3e61d9a4b7c20e8f1a5d3c9b6e4f7a2d';

async function run(args: readonly string[]): Promise<void> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      conversations: { type: 'string', default: '1000000' },
      requests: { type: 'string', default: '200' },
      batch: { type: 'string', default: '2000' },
      rounds: { type: 'string', default: '5' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  const conversations = Number(values.conversations);
  const requests = Number(values.requests);
  const batch = Number(values.batch);
  const log = (line: string) => console.log(line);
  const redisServer = await openFreshRedis();
  const redis = new Redis(redisServer.url, redisOptionsForStore());
  const registry = createBotRegistry([{ bot: survey, file: 'bots/survey.ts' }]);
  // Two stores on the one Redis: the loaded one, and an empty one measured in the same state.
  const store = createRedisStore({ redis, prefix: randomPrefix('bench-dashboard') });
  const emptyStore = createRedisStore({ redis, prefix: randomPrefix('bench-dashboard-empty') });
  const loadedApp = await serveDashboard(store, registry);
  const emptyApp = await serveDashboard(emptyStore, registry);
  const rounds = Number(values.rounds);

  try {
    log(`machine: ${JSON.stringify(machineInfo())}; redis ${redisServer.version}`);

    const loadStarted = Date.now();
    await load(store, registry, conversations, batch, log);
    const loadSeconds = (Date.now() - loadStarted) / 1000;
    const gauge = await store.readCounters(activeCounters(location, 'survey'));
    const info = await redis.info('memory');
    const usedMemory = Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);
    log(
      `loaded ${conversations.toLocaleString('en')} conversations in ${loadSeconds.toFixed(0)} s; gauge * = ${gauge['*']}; Redis used_memory ${(usedMemory / 2 ** 20).toFixed(0)} MiB`,
    );

    // Rounds alternate between the two, so both see the machine as it is.
    const emptyRounds: { p50: number; p99: number }[] = [];
    const fullRounds: { p50: number; p99: number }[] = [];
    for (let round = 1; round <= rounds; round++) {
      const e = await timeOverview(emptyApp.url, requests);
      const f = await timeOverview(loadedApp.url, requests);
      emptyRounds.push(e);
      fullRounds.push(f);
      log(
        `  round ${round}: loaded p50 ${fixed(f.p50, 2)} / p99 ${fixed(f.p99, 2)} ms; empty p50 ${fixed(e.p50, 2)} / p99 ${fixed(e.p99, 2)} ms`,
      );
    }
    const medianOf = (list: { p50: number; p99: number }[]) => ({
      p50: median(list.map((r) => r.p50)),
      p99: median(list.map((r) => r.p99)),
    });
    const empty = medianOf(emptyRounds);
    const full = medianOf(fullRounds);

    // What a team would write without the counters: walk the records and count (once; slow).
    const scanStarted = Date.now();
    let cursor = '0';
    const active: { botId: string; status: string; snapshot: unknown }[] = [];
    do {
      const page = await store.scanConversations(cursor, 1000);
      cursor = page.cursor;
      for (const record of page.records) active.push(record);
    } while (cursor !== '0');
    const counted = tallyActive(active).reduce((sum, entry) => sum + entry.count, 0);
    const scanMs = Date.now() - scanStarted;
    log(
      `hand-written count from the records: ${counted.toLocaleString('en')} active in ${scanMs} ms`,
    );

    console.log(
      `\n${markdownTable(
        ['figure', 'value'],
        [
          ['conversations in Redis', conversations.toLocaleString('en')],
          [
            'overview p50 / p99, empty store (ms)',
            `${fixed(empty.p50, 2)} / ${fixed(empty.p99, 2)}`,
          ],
          ['overview p50 / p99, loaded (ms)', `${fixed(full.p50, 2)} / ${fixed(full.p99, 2)}`],
          ['loaded / empty, p50', fixed(full.p50 / empty.p50, 2)],
          ['hand-written scan count (ms)', String(scanMs)],
          ['scan / overview p50', fixed(scanMs / full.p50, 0)],
          ['goal: overview ≤ 200 ms loaded', full.p99 <= 200 ? 'met (p99)' : 'NOT met'],
        ],
      )}`,
    );
  } finally {
    loadedApp.server.close();
    emptyApp.server.close();
    await store.close().catch(() => {});
    await emptyStore.close().catch(() => {});
    redis.disconnect();
    await redisServer.stop();
  }
}

/** The admin API as `replyflow start` mounts it, on `store`, listening on loopback. */
async function serveDashboard(
  store: ReturnType<typeof createRedisStore>,
  registry: ReturnType<typeof createBotRegistry>,
) {
  const logger = pino({ level: 'silent' });
  const app = createHttpApp({
    store,
    clock: systemClock,
    logger,
    secrets: new Map(),
    extra: [
      createAdminRouter({
        store,
        registry,
        clock: systemClock,
        config: {
          locations: [{ name: location, defaultCountry: 'FR' } as LocationConfig],
          adminToken: token,
          adminReadToken: undefined,
        },
        logger,
      }),
    ],
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${port}/admin/api/overview` };
}

/** Times `requests` GETs of the first screen (after 20 not counted), one at a time, in ms. */
async function timeOverview(url: string, requests: number) {
  const samples: number[] = [];
  for (let i = 0; i < requests + 20; i++) {
    const started = process.hrtime.bigint();
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    if (response.status !== 200) throw new Error(`overview answered ${response.status}`);
    await response.arrayBuffer();
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (i >= 20) samples.push(ms);
  }
  return { p50: median(samples), p99: percentile(samples, 99) };
}

/** Starts `count` survey conversations through the real worker (its commits move the counters). */
async function load(
  store: ReturnType<typeof createRedisStore>,
  registry: ReturnType<typeof createBotRegistry>,
  count: number,
  batch: number,
  log: (line: string) => void,
): Promise<void> {
  const worker = createWorker({
    store,
    registry,
    clock: systemClock,
    logger: pino({ level: 'silent' }),
    concurrency: 64,
  });
  worker.start();
  const gauge = async () =>
    (await store.readCounters(activeCounters(location, 'survey')))['*'] ?? 0;
  let lastLine = Date.now();
  for (let first = 0; first < count; first += batch) {
    const items: IngestItem[] = [];
    const now = Date.now();
    for (let n = first; n < Math.min(count, first + batch); n++) {
      const phone = `336${String(10_000_000 + n).padStart(8, '0')}`;
      items.push({
        event: {
          v: 1,
          kind: 'start',
          id: `bench-start-${n}`,
          location,
          phone,
          receivedAt: now,
          botId: 'survey',
          input: { lang: 'en' },
        },
      });
    }
    await store.ingest(`bench-${first}`, items, now);
    // Keep the backlog to a few batches: the worker works at its steady pace.
    while (first + batch - (await gauge()) > 4 * batch) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (Date.now() - lastLine > 10_000) {
      lastLine = Date.now();
      log(`  loading: ${(await gauge()).toLocaleString('en')} / ${count.toLocaleString('en')}`);
    }
  }
  while ((await gauge()) < count) await new Promise((resolve) => setTimeout(resolve, 100));
  await worker.stop();
}
