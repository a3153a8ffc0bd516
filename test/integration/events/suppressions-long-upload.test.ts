import { type IncomingMessage, request, type Server } from 'node:http';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createAdminRouter } from '../../../src/admin/create-admin-router.ts';
import type { LocationConfig } from '../../../src/app/config.ts';
import { createHardenedServer, httpLimits } from '../../../src/app/create-hardened-server.ts';
import { createHttpApp } from '../../../src/app/create-http-app.ts';
import { listenOn } from '../../../src/app/listen-on.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { newEventSecret } from '../../../src/events/event-secret.ts';
import { systemClock } from '../../../src/scheduler/clock.ts';
import { createRedisStore } from '../../../src/store/redis/create-redis-store.ts';
import { storeKeys } from '../../../src/store/redis/keys.ts';
import type { Store } from '../../../src/store/store.ts';
import { randomPrefix, testRedisUrl } from '../../support/redis.ts';
import { connectRedis } from '../../support/reply-loop.ts';

/** The production limits with a 1 s request timeout, so that an upload outlasts it quickly. */
const limits = {
  ...httpLimits,
  headersTimeoutMs: 1_000,
  requestTimeoutMs: 1_000,
  checkIntervalMs: 200,
};
const token = 'admin-9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** What came of a request: its status and body, or `closed` when the socket was cut first. */
type Outcome = { status: number; body: string } | { closed: true };

/** POSTs `chunks` `everyMs` apart (chunked): a large file on a link slower than the server. */
function upload(url: string, chunks: string[], everyMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = request(url, {
      method: 'POST',
      headers: { 'content-type': 'text/csv', authorization: `Bearer ${token}` },
    });
    req.on('response', (res: IncomingMessage) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', () => resolve({ closed: true }));
    });
    req.on('error', () => resolve({ closed: true }));
    let i = 0;
    const next = () => {
      if (req.destroyed) return;
      if (i < chunks.length) {
        req.write(chunks[i++]);
        setTimeout(next, everyMs);
      } else req.end();
    };
    next();
  });
}

async function serve(store: Store, locations: LocationConfig[]): Promise<string> {
  const server: Server = createHardenedServer(
    createHttpApp({
      store,
      clock: systemClock,
      logger: pino({ level: 'silent' }),
      secrets: new Map(),
      extra: [
        createAdminRouter({
          store,
          registry: createBotRegistry([]),
          clock: systemClock,
          config: { locations, adminToken: token },
          logger: pino({ level: 'silent' }),
        }),
      ],
    }),
    limits,
  );
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return listenOn(server, 0, '127.0.0.1');
}

describe('POST /admin/suppressions with a large list, on redis', () => {
  it('takes 50,000 rows sent slower than the request timeout, each opt-out with its event', {
    timeout: 120_000,
  }, async () => {
    const redis = connectRedis({ url: testRedisUrl(), prefix: '' });
    const prefix = randomPrefix('rf');
    const store = createRedisStore({ redis, prefix, onError: () => {} });
    const keys = storeKeys(prefix, store.partitions);
    closers.push(async () => {
      await store.close();
      redis.disconnect();
    });
    const base = await serve(store, [
      {
        name: 'paris',
        rateLimitPerSecond: 10,
        events: [
          { url: 'https://crm.example.com/in', secret: newEventSecret(), types: ['optout'] },
        ],
      } as LocationConfig,
    ]);
    const rows = 50_000;
    const perChunk = 2_500;
    const chunks = ['phone,reason\n'];
    for (let from = 0; from < rows; from += perChunk) {
      let chunk = '';
      for (let i = from; i < from + perChunk; i++) chunk += `+336${10_000_000 + i},imported\n`;
      chunks.push(chunk);
    }
    const started = performance.now();
    // 21 writes 100 ms apart: the body takes 2 s to arrive, twice the request timeout.
    const outcome = await upload(`${base}/admin/suppressions`, chunks, 100);
    const tookMs = performance.now() - started;
    expect(outcome).toMatchObject({ status: 200 });
    expect(JSON.parse((outcome as { body: string }).body)).toMatchObject({
      location: 'paris',
      imported: rows,
      existing: 0,
      rejectedCount: 0,
    });
    let listed = 0;
    for await (const batch of store.listSuppressions('paris')) listed += batch.length;
    expect(listed).toBe(rows);
    // Counted where they wait, one ZCARD a partition; a sample read back whole.
    let queued = 0;
    for (let p = 0; p < store.partitions; p++) {
      queued += await redis.zcard(keys.partition(p).eventsDue);
    }
    expect(queued).toBe(rows);
    const sample = await store.listEvents({ limit: 20 });
    expect(sample).toHaveLength(20);
    expect(new Set(sample.map((q) => q.event.type))).toEqual(new Set(['optout']));
    console.log(
      `50,000 opt-outs with their events through POST /admin/suppressions: ${Math.round(tookMs)} ms`,
    );
  });
});
