import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { connectRedis, reconnectDelayMs } from '../../../src/store/redis/connect-redis.ts';
import { createRedisStore } from '../../../src/store/redis/create-redis-store.ts';
import { StoreUnavailableError } from '../../../src/store/store-errors.ts';
import { randomPrefix } from '../../support/redis.ts';
import { hasRedisServer, throwawayRedis } from '../../support/throwaway-redis.ts';
import { waitFor } from '../../support/wait-for.ts';

describe('reconnectDelayMs', () => {
  it('doubles from 250 ms to at most 5 s', () => {
    expect([1, 2, 3, 4, 5, 6, 20].map(reconnectDelayMs)).toEqual([
      250, 500, 1_000, 2_000, 4_000, 5_000, 5_000,
    ]);
  });
});

describe.skipIf(!hasRedisServer)('connectRedis, while Redis is away', () => {
  it('backs off its reconnects yet fails calls at once, and works again when Redis is back', {
    timeout: 30_000,
  }, async () => {
    const server = await throwawayRedis();
    const redis = connectRedis(server.url);
    const attempts: number[] = [];
    redis.on('error', () => {});
    redis.on('reconnecting', (delay: number) => attempts.push(delay));
    const store = createRedisStore({ redis, prefix: randomPrefix('backoff'), onError: () => {} });
    try {
      await store.ping();
      await server.stop();
      // Past the first attempts: the next one is seconds away.
      await sleep(2_500);
      expect(attempts.slice(0, 4)).toEqual([250, 500, 1_000, 2_000]);
      for (let i = 0; i < 3; i++) {
        const startedAt = performance.now();
        await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
        // The webhook answers 503 from this: it must not wait for the next attempt.
        expect(performance.now() - startedAt).toBeLessThan(200);
      }
      await server.start();
      await waitFor(
        () =>
          store.ping().then(
            () => true,
            () => false,
          ),
        { timeout: 10_000, message: 'the store answers again' },
      );
    } finally {
      await store.close();
      redis.disconnect();
      await server.stop();
    }
  });
});
