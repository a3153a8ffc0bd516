import type { TestProject } from 'vitest/node';
import { hasRedisServer, type ThrowawayRedis, throwawayRedis } from './throwaway-redis.ts';
import { waitForRedis } from './wait-for-redis.ts';

/**
 * Finds the Redis the tests use: `REDIS_URL` when set, otherwise a throwaway `redis-server`
 * from PATH on a free port, with nothing kept on disk. Each test file then works under its own
 * random key prefix (see `redis.ts`), so files never see each other's keys.
 */
let server: ThrowawayRedis | undefined;

export async function setup(project: TestProject): Promise<void> {
  let url = process.env.REDIS_URL;
  if (url) await waitForRedis(url);
  else {
    if (!hasRedisServer) {
      throw new Error(
        'The tests need Redis. Either set REDIS_URL=redis://127.0.0.1:6379 to use a running one, ' +
          'or put redis-server on PATH (Debian/Ubuntu: apt-get install -y redis-server; macOS: brew install redis) ' +
          'and the tests will start a throwaway one on a free port.',
      );
    }
    server = await throwawayRedis();
    url = server.url;
  }
  project.provide('redisUrl', url);
}

export async function teardown(): Promise<void> {
  await server?.stop('SIGTERM');
}

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}
