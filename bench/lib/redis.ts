import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { freePort } from '../../test/support/free-port.ts';
import { waitForRedis } from '../../test/support/wait-for-redis.ts';

export interface BenchRedis {
  url: string;
  /** `redis_version` from INFO. */
  version: string;
  /** Where it came from, for the report. */
  origin: 'REDIS_URL' | 'throwaway redis-server (no persistence)';
  /** Stops the throwaway server; a given REDIS_URL is left alone. */
  stop(): Promise<void>;
}

/**
 * The Redis a benchmark runs against: `REDIS_URL` when set, otherwise a throwaway
 * `redis-server` from PATH on a free port with nothing kept on disk, so the bench neither
 * shares a server with running tests nor leaves data behind.
 */
export async function openBenchRedis(): Promise<BenchRedis> {
  let server: ChildProcess | undefined;
  let url = process.env.REDIS_URL;
  if (!url) {
    if (spawnSync('redis-server', ['--version']).error) {
      throw new Error(
        'the benchmark needs Redis: set REDIS_URL=redis://127.0.0.1:6379, or put redis-server on PATH ' +
          '(apt-get install -y redis-server) and the bench starts a throwaway one',
      );
    }
    const port = await freePort();
    server = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    url = `redis://127.0.0.1:${port}`;
  }
  const version = await waitForRedis(url);
  return {
    url,
    version,
    origin: server ? 'throwaway redis-server (no persistence)' : 'REDIS_URL',
    async stop() {
      if (!server || server.exitCode !== null) return;
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    },
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
