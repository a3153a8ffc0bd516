import type { Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coalesceWrites } from '../../../src/store/redis/coalesce-writes.ts';
import {
  createRedisStore,
  redisOptionsForStore,
} from '../../../src/store/redis/create-redis-store.ts';
import { countHandleWrites } from '../../support/count-handle-writes.ts';
import { randomPrefix, testRedisUrl } from '../../support/redis.ts';
import { replyEvent, t0 } from './contract/fixtures.ts';

describe('coalesceWrites', () => {
  const redis = new Redis(testRedisUrl(), redisOptionsForStore({ lazyConnect: true }));
  const prefix = randomPrefix('coalesce');
  beforeAll(() => redis.connect());
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.unlink(...keys);
    await redis.quit();
  });

  it('sends the commands of one tick in one write, in order, and each gets its own reply', async () => {
    const coalesce = coalesceWrites(redis);
    const counts = countHandleWrites(redis.stream as Socket);
    const calls = Array.from({ length: 10 }, (_, i) => {
      coalesce();
      return redis.incrby(`${prefix}n`, i + 1);
    });
    // Running totals 1, 3, 6, …: written and applied in the order they were issued.
    expect(await Promise.all(calls)).toEqual(
      Array.from({ length: 10 }, (_, i) => ((i + 1) * (i + 2)) / 2),
    );
    expect(counts).toEqual({ write: 0, writev: 1, chunks: 10 });
  });

  it('is what the store does: ten ingests started in one tick cost one socket write', async () => {
    const store = createRedisStore({ redis, prefix, partitions: 1 });
    // The scripts loaded first (a fresh server has none: the first call loads them), so that
    // the count is the steady state's.
    await store.ingest('warm-up', [{ event: replyEvent('e-warm-up', '33612000099') }], t0);
    const counts = countHandleWrites(redis.stream as Socket);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        store.ingest(`n-${i}`, [{ event: replyEvent(`e-${i}`, `3361200000${i}`) }], t0),
      ),
    );
    expect(results.map((result) => result.pushed)).toEqual(new Array(10).fill(1));
    expect(counts.writev).toBe(1);
    expect(counts.write).toBe(0);
    await store.close();
  });

  it('leaves a connection that is not ready alone: its commands wait in the offline queue as before', async () => {
    const offline = new Redis(testRedisUrl(), redisOptionsForStore({ lazyConnect: true }));
    try {
      const coalesce = coalesceWrites(offline);
      expect(offline.status).toBe('wait');
      coalesce();
      // The first command connects (lazyConnect) and waits in the offline queue meanwhile.
      expect(await offline.ping()).toBe('PONG');
      // Corked nothing, so nothing was left corked: a later command in another tick goes out.
      await new Promise((resolve) => setImmediate(resolve));
      expect((offline.stream as Socket).writableCorked).toBe(0);
      expect(await offline.ping()).toBe('PONG');
    } finally {
      offline.disconnect();
    }
  });
});
