import { createServer, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createRedisStore,
  redisOptionsForStore,
} from '../../../src/store/redis/create-redis-store.ts';
import { storeKeys } from '../../../src/store/redis/keys.ts';
import type { Store } from '../../../src/store/store.ts';
import { StoreRefusedError, StoreUnavailableError } from '../../../src/store/store-errors.ts';
import { connectTestRedis, randomPrefix } from '../../support/redis.ts';
import { replyEvent, t0 } from './contract/fixtures.ts';

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = await listen(() => {});
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function listen(onConnection: (socket: Socket) => void): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer(onConnection);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

/** Runs `call` and answers how long it took to reject, and with what. */
async function rejection(call: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  const error = await call().then(
    () => new Error('resolved, but should have rejected'),
    (reason: unknown) => reason,
  );
  return { error, ms: performance.now() - started };
}

function storeAt(url: string, overrides = {}): { store: Store; redis: Redis; errors: unknown[] } {
  const redis = new Redis(url, redisOptionsForStore(overrides));
  const errors: unknown[] = [];
  redis.on('error', (error) => errors.push(error));
  return { store: createRedisStore({ redis }), redis, errors };
}

describe('redis store when Redis cannot serve', () => {
  it('rejects fast with StoreUnavailableError when nothing listens at REDIS_URL', async () => {
    const { store, redis } = storeAt(`redis://127.0.0.1:${await closedPort()}`);
    try {
      for (const call of [
        () => store.ingest('n-1', [{ event: replyEvent('e-1', '33612345678') }], t0),
        () => store.claim('inbox', 0, 30_000, t0),
      ]) {
        const { error, ms } = await rejection(call);
        expect(error).toBeInstanceOf(StoreUnavailableError);
        expect((error as StoreUnavailableError).code).toBe('STORE_UNAVAILABLE');
        expect((error as Error).message).toMatch(/REDIS_URL/);
        expect(ms).toBeLessThan(2_000);
      }
    } finally {
      redis.disconnect();
    }
  });

  it('rejects after commandTimeout when Redis accepts the connection but never answers', async () => {
    const sockets: Socket[] = [];
    const silent = await listen((socket) => sockets.push(socket));
    const { port } = silent.address() as { port: number };
    const { store, redis } = storeAt(`redis://127.0.0.1:${port}`, { commandTimeout: 300 });
    try {
      const { error, ms } = await rejection(() =>
        store.readInbox({
          queue: 'inbox',
          partition: 0,
          token: 't',
          location: 'paris',
          phone: '33612345678',
        }),
      );
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(ms).toBeLessThan(1_500);
    } finally {
      redis.disconnect();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  describe('when Redis answers with an error', () => {
    const redis = connectTestRedis();
    afterAll(() => redis.quit());

    it('rejects with StoreRefusedError saying Redis refused: a retry would meet the same answer', async () => {
      const prefix = randomPrefix('refused');
      const ready = storeKeys(prefix, 16).partition(3).ready('inbox');
      await redis.set(ready, 'not a sorted set', 'EX', 60);
      const store = createRedisStore({ redis, prefix });
      const { error } = await rejection(() => store.claim('inbox', 3, 30_000, t0));
      expect(error).toBeInstanceOf(StoreRefusedError);
      expect((error as Error).message).toMatch(/Redis refused claim: .*WRONGTYPE/);
      expect((error as Error).cause).toBeInstanceOf(Error);
      await redis.unlink(ready);
    });
  });
});
