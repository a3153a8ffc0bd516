import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { hasRedisServer, throwawayRedis } from '../../test/support/throwaway-redis.ts';
import { waitForRedis } from '../../test/support/wait-for-redis.ts';

export interface BenchRedis {
  url: string;
  /** `redis_version` from INFO. */
  version: string;
  /** Where it came from, for the report. */
  origin: 'REDIS_URL' | 'throwaway redis-server (no persistence)' | 'fresh redis-server';
  /** Stops the throwaway server; a given REDIS_URL is left alone. */
  stop(): Promise<void>;
}

/**
 * The Redis a benchmark runs against: `REDIS_URL` when set, otherwise a throwaway
 * `redis-server` from PATH on a free port with nothing kept on disk, so the bench neither
 * shares a server with running tests nor leaves data behind.
 */
export async function openBenchRedis(): Promise<BenchRedis> {
  const given = process.env.REDIS_URL;
  if (given) {
    return {
      url: given,
      version: await waitForRedis(given),
      origin: 'REDIS_URL',
      stop: async () => {},
    };
  }
  if (!hasRedisServer) {
    throw new Error(
      'the benchmark needs Redis: set REDIS_URL=redis://127.0.0.1:6379, or put redis-server on PATH ' +
        '(apt-get install -y redis-server) and the bench starts a throwaway one',
    );
  }
  const server = await throwawayRedis();
  return {
    url: server.url,
    version: server.version,
    origin: 'throwaway redis-server (no persistence)',
    stop: () => server.stop('SIGTERM'),
  };
}

/**
 * A `redis-server` of the bench's own from PATH, whatever `REDIS_URL` says: for a measure of
 * the whole server (memory, command counts) that nothing else may share.
 */
export async function openFreshRedis(): Promise<BenchRedis> {
  if (!hasRedisServer) {
    throw new Error(
      'this benchmark needs a redis-server of its own: put redis-server on PATH ' +
        '(apt-get install -y redis-server); REDIS_URL is not used',
    );
  }
  const server = await throwawayRedis();
  return {
    url: server.url,
    version: server.version,
    origin: 'fresh redis-server',
    stop: () => server.stop('SIGTERM'),
  };
}

/** A random key prefix, so a run never sees (or deletes) anybody else's keys. */
export function randomPrefix(label: string): string {
  return `${label}:${randomBytes(6).toString('hex')}:`;
}

/** Counts the keys under `prefix` (SCAN). */
export async function countKeys(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let count = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    count += keys.length;
  } while (cursor !== '0');
  return count;
}

/** Deletes every key under `prefix` (SCAN + UNLINK); resolves with the count. */
export async function deleteKeys(redis: Redis, prefix: string): Promise<number> {
  if (!/^[A-Za-z0-9:_-]+:$/.test(prefix)) throw new Error(`refusing to delete under '${prefix}'`);
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) deleted += await redis.unlink(...keys);
  } while (cursor !== '0');
  return deleted;
}
