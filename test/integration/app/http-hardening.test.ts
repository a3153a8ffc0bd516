import type { Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHardenedServer } from '../../../src/app/create-hardened-server.ts';
import { createHttpApp } from '../../../src/app/create-http-app.ts';
import { listenOn } from '../../../src/app/listen-on.ts';
import { systemClock } from '../../../src/scheduler/clock.ts';
import { createRedisStore } from '../../../src/store/redis/create-redis-store.ts';
import type { Store } from '../../../src/store/store.ts';
import { connectTestRedis, randomPrefix } from '../../support/redis.ts';
import { location, replyNotification, webhookSecret } from '../../support/reply-loop.ts';

const holdMs = 2_000;
const redis = connectTestRedis();
const prefix = randomPrefix('hardening');
const realStore = createRedisStore({ redis, prefix });
/** The real store, with each ingest held 2 s: requests pile up as under an overload. */
const slowStore: Store = {
  ...realStore,
  async ingest(...args) {
    await new Promise((resolve) => setTimeout(resolve, holdMs));
    return realStore.ingest(...args);
  },
};

let server: Server;
let base: string;
const maxInflight = 10;
beforeAll(async () => {
  server = createHardenedServer(
    createHttpApp({
      store: slowStore,
      clock: systemClock,
      logger: pino({ level: 'silent' }),
      secrets: new Map([[location, webhookSecret]]),
      gate: { draining: () => false, maxInflight },
    }),
  );
  base = await listenOn(server, 0, '127.0.0.1');
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await realStore.close();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.unlink(...keys);
  await redis.quit();
});

describe('slow clients', () => {
  it('closes twenty slow-loris connections within 10 s', async () => {
    const port = Number(new URL(base).port);
    const openedAt = Date.now();
    const closedAfter: number[] = [];
    const sockets: Socket[] = [];
    const tricklers: NodeJS.Timeout[] = [];
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        const socket = connect(port, '127.0.0.1');
        sockets.push(socket);
        socket.on('error', () => {});
        // Reads what the server says (its 408), so the socket sees the server's end.
        socket.resume();
        socket.on('close', () => closedAfter.push(Date.now() - openedAt));
        return new Promise<void>((resolve) =>
          socket.once('connect', () => {
            // Half send headers a few bytes at a time and never finish; half send nothing.
            if (i % 2 === 0) {
              socket.write(`POST /webhooks/${location}/${webhookSecret} HTTP/1.1\r\nHost: x\r\n`);
              tricklers.push(setInterval(() => socket.write('X-a: b\r\n'), 500));
            }
            resolve();
          }),
        );
      }),
    );
    const deadline = Date.now() + 12_000;
    while (closedAfter.length < 20 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    for (const trickler of tricklers) clearInterval(trickler);
    for (const socket of sockets) socket.destroy();
    expect(closedAfter).toHaveLength(20);
    expect(Math.max(...closedAfter)).toBeLessThan(10_000);
  }, 20_000);
});

describe('a cap on webhook requests in flight', () => {
  it('answers 503 at once past the cap, and stores every notification it acknowledged', async () => {
    const phones = Array.from({ length: 60 }, (_, i) => String(33612345000 + i));
    const answers = await Promise.all(
      phones.map(async (phone, i) => {
        const sentAt = Date.now();
        const res = await fetch(`${base}/webhooks/${location}/${webhookSecret}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(replyNotification(`cap-${i}`, phone, `hello ${i}`)),
        });
        await res.arrayBuffer();
        return {
          phone,
          i,
          status: res.status,
          ms: Date.now() - sentAt,
          retryAfter: res.headers.get('retry-after'),
        };
      }),
    );
    const accepted = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 503);
    expect(accepted.length + refused.length).toBe(phones.length);
    expect(accepted.length).toBeGreaterThanOrEqual(maxInflight);
    expect(refused.length).toBeGreaterThan(0);
    // Refused at once, before the store: no 503 waited for a held ingest, as each 200 did.
    expect(Math.max(...refused.map((a) => a.ms))).toBeLessThan(holdMs);
    expect(Math.min(...accepted.map((a) => a.ms))).toBeGreaterThanOrEqual(holdMs - 50);
    expect(refused.every((a) => a.retryAfter === '1')).toBe(true);
    for (const { phone, i } of accepted) {
      const events = await realStore.pendingEvents({ location, phone });
      expect(events.map((e) => e.id)).toEqual([`cap-${i}:0`]);
    }
    for (const { phone } of refused) {
      expect(await realStore.pendingEvents({ location, phone })).toEqual([]);
    }
    // Once the pile-up is over, the webhook takes notifications again (the refused are retried).
    for (const { phone, i } of refused.slice(0, 3)) {
      const res = await fetch(`${base}/webhooks/${location}/${webhookSecret}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(replyNotification(`cap-${i}`, phone, `hello ${i}`)),
      });
      expect(res.status).toBe(200);
    }
  }, 20_000);

  it('does not tell its framework', async () => {
    const res = await fetch(`${base}/healthz`);
    expect(res.headers.get('x-powered-by')).toBeNull();
  });
});
