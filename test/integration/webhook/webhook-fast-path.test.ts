import type { Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import { pino } from 'pino';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHardenedServer } from '../../../src/app/create-hardened-server.ts';
import { createHttpApp, createHttpListener } from '../../../src/app/create-http-app.ts';
import { listenOn } from '../../../src/app/listen-on.ts';
import { systemClock } from '../../../src/scheduler/clock.ts';
import { createRedisStore } from '../../../src/store/redis/create-redis-store.ts';
import { hostileBodies } from '../../support/hostile-bodies.ts';
import { connectTestRedis, randomPrefix } from '../../support/redis.ts';
import { location, replyNotification, webhookSecret } from '../../support/reply-loop.ts';

// `replyflow start` takes the usual notification before Express (create-webhook-fast-path.ts);
// `createHttpApp` is the Express app alone. Each gets its own store and the same requests, in
// the same order: every answer must be the same, status, body and the headers that matter.
const redis = connectTestRedis();
const prefixes = [randomPrefix('fast-path'), randomPrefix('express-path')];
const stores = prefixes.map((prefix) => createRedisStore({ redis, prefix }));
const servers: Server[] = [];
const pools: Pool[] = [];

beforeAll(async () => {
  for (const [index, store] of stores.entries()) {
    const options = {
      store,
      clock: systemClock,
      logger: pino({ level: 'silent' }),
      secrets: new Map([
        [location, webhookSecret],
        ['lyon', 'a secret/with odd?chars'],
      ]),
      gate: { draining: () => false, maxInflight: 64 },
    };
    const server = createHardenedServer(
      index === 0 ? createHttpListener(options) : createHttpApp(options),
    );
    pools.push(new Pool(await listenOn(server, 0, '127.0.0.1'), { connections: 4 }));
    servers.push(server);
  }
});
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.close()));
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await Promise.all(stores.map((store) => store.close()));
  for (const prefix of prefixes) {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.unlink(...keys);
  }
  await redis.quit();
});

interface Sent {
  method?: 'POST' | 'GET' | 'PUT';
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** What each server answered: status, the headers a client reads, and the body. */
async function both(request: Sent) {
  return Promise.all(
    pools.map(async (pool) => {
      const res = await pool.request({
        method: request.method ?? 'POST',
        path: request.path ?? `/webhooks/${location}/${webhookSecret}`,
        headers: { 'content-type': 'application/json', ...request.headers },
        body: request.body,
      });
      const text = await res.body.text();
      return {
        status: res.statusCode,
        contentType: res.headers['content-type'],
        retryAfter: res.headers['retry-after'],
        body: text,
      };
    }),
  );
}

async function expectSame(request: Sent) {
  const [fast, express] = await both(request);
  expect(fast).toEqual(express);
  return fast!;
}

describe('the webhook fast path', () => {
  it('answers a notification, its redelivery and a wrong secret as the Express route does', async () => {
    const body = JSON.stringify(replyNotification('fp-1', '33612345678', 'hello'));
    const first = await expectSame({ body });
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body)).toMatchObject({ duplicate: false, accepted: 1 });
    expect(JSON.parse((await expectSame({ body })).body)).toMatchObject({ duplicate: true });
    expect((await expectSame({ body, path: `/webhooks/${location}/wrong` })).status).toBe(404);
    expect((await expectSame({ body, path: `/webhooks/nowhere/${webhookSecret}` })).status).toBe(
      404,
    );
    // Both stored it once.
    for (const store of stores) {
      expect(
        (await store.pendingEvents({ location, phone: '33612345678' })).map((e) => e.id),
      ).toEqual(['fp-1:0']);
    }
  });

  it('answers odd paths, encodings and charsets as the Express route does', async () => {
    const body = (id: string) => JSON.stringify(replyNotification(id, '33612345679', id));
    const cases: Sent[] = [
      { path: `/webhooks/${location}/${webhookSecret}/`, body: body('fp-slash') },
      { path: `/webhooks/${location}/${webhookSecret}?x=1&y=2`, body: body('fp-query') },
      { path: `/WEBHOOKS/${location}/${webhookSecret}`, body: body('fp-case') },
      {
        path: `/webhooks/lyon/${encodeURIComponent('a secret/with odd?chars')}`,
        body: body('fp-e'),
      },
      { path: `/webhooks/${location}/%E0%A4%A`, body: body('fp-bad-escape') },
      { path: `/webhooks/${location}/${webhookSecret}/extra`, body: body('fp-extra') },
      { method: 'GET', body: undefined },
      { method: 'PUT', body: body('fp-put') },
      { body: `\uFEFF${body('fp-bom')}` },
      { body: '' },
      { body: gzipSync(body('fp-gzip')), headers: { 'content-encoding': 'gzip' } },
      { body: body('fp-br'), headers: { 'content-encoding': 'br' } },
      { body: body('fp-utf8'), headers: { 'content-type': 'application/json; charset=UTF-8' } },
      { body: body('fp-quoted'), headers: { 'content-type': 'application/json; charset="utf-8"' } },
      {
        body: Buffer.from(body('fp-latin1é'), 'latin1'),
        headers: { 'content-type': 'text/plain; charset=iso-8859-1' },
      },
      { body: body('fp-koi'), headers: { 'content-type': 'text/plain; charset=nonsense' } },
      { body: body('fp-no-type'), headers: { 'content-type': '' } },
      { body: 'x'.repeat(256 * 1024 + 1) },
      { body: `${body('fp-limit')}${' '.repeat(256 * 1024 - body('fp-limit').length)}` },
    ];
    const statuses = [];
    for (const request of cases) statuses.push((await expectSame(request)).status);
    // The cases cover what each path must do, not only agree: stored, refused, not found, too big.
    expect(new Set(statuses)).toEqual(new Set([200, 400, 404, 413, 415]));
  });

  it('answers 5,000 hostile bodies as the Express route does', { timeout: 180_000 }, async () => {
    for (const sample of hostileBodies(5_000, 20261124)) {
      await expectSame({
        body: sample.body,
        headers: { 'content-type': sample.contentType ?? 'application/json' },
      });
    }
  });

  it('keeps to a limit set in the options as the Express route does', async () => {
    const made = stores.map((store, index) => {
      const options = {
        store,
        clock: systemClock,
        logger: pino({ level: 'silent' }),
        secrets: new Map([[location, webhookSecret]]),
        limit: '1kb',
      };
      return createHardenedServer(
        index === 0 ? createHttpListener(options) : createHttpApp(options),
      );
    });
    try {
      const bases = await Promise.all(made.map((server) => listenOn(server, 0, '127.0.0.1')));
      const body = JSON.stringify(replyNotification('fp-small', '33612345671', 'hi'));
      for (const size of [1_024, 1_025]) {
        const padded = body + ' '.repeat(size - body.length);
        const answers = await Promise.all(
          bases.map(async (base) => {
            const res = await fetch(`${base}/webhooks/${location}/${webhookSecret}`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: padded,
            });
            return { status: res.status, body: await res.text() };
          }),
        );
        expect(answers[0]).toEqual(answers[1]);
        expect(answers[0]!.status).toBe(size > 1_024 ? 413 : 200);
      }
    } finally {
      for (const server of made) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    }
  });

  it('counts its requests against the gate the Express route shares', async () => {
    let draining = true;
    const server = createHardenedServer(
      createHttpListener({
        store: stores[0]!,
        clock: systemClock,
        logger: pino({ level: 'silent' }),
        secrets: new Map([[location, webhookSecret]]),
        gate: { draining: () => draining, maxInflight: 8 },
      }),
    );
    const base = await listenOn(server, 0, '127.0.0.1');
    try {
      const post = () =>
        fetch(`${base}/webhooks/${location}/${webhookSecret}`, {
          method: 'POST',
          body: JSON.stringify(replyNotification('fp-gate', '33612345670', 'hi')),
        });
      const refused = await post();
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(await refused.json()).toEqual({ status: 503, message: 'stopping: retry later' });
      draining = false;
      expect((await post()).status).toBe(200);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
