import type { TestProject } from 'vitest/node';
import { hasRedisServer, type ThrowawayRedis, throwawayRedis } from './throwaway-redis.ts';
import { type ThrowawayRedisCluster, throwawayRedisCluster } from './throwaway-redis-cluster.ts';
import { waitForRedis } from './wait-for-redis.ts';

/**
 * Finds the Redis the tests use: `REDIS_URL` when set, otherwise a throwaway `redis-server`
 * from PATH on a free port, with nothing kept on disk. Each test file then works under its own
 * random key prefix (see `redis.ts`), so files never see each other's keys.
 *
 * Likewise the Redis Cluster the cluster variants of the tests use: `TEST_REDIS_CLUSTER_NODES`
 * (`host:port,…` of a running cluster) when set, otherwise a throwaway 3-master cluster
 * (`throwaway-redis-cluster.ts`, about 2 s to start, alongside the single Redis).
 */
let server: ThrowawayRedis | undefined;
let cluster: ThrowawayRedisCluster | undefined;

export async function setup(project: TestProject): Promise<void> {
  const given = process.env.TEST_REDIS_CLUSTER_NODES;
  const [url, clusterNodes] = await Promise.all([
    singleRedis(),
    given
      ? given.split(',')
      : throwawayRedisCluster().then((started) => {
          cluster = started;
          return started.nodes;
        }),
  ]);
  project.provide('redisUrl', url);
  project.provide('redisClusterNodes', clusterNodes);
}

async function singleRedis(): Promise<string> {
  const url = process.env.REDIS_URL;
  if (url) {
    await waitForRedis(url);
    return url;
  }
  if (!hasRedisServer) {
    throw new Error(
      'The tests need Redis. Either set REDIS_URL=redis://127.0.0.1:6379 to use a running one, ' +
        'or put redis-server on PATH (Debian/Ubuntu: apt-get install -y redis-server; macOS: brew install redis) ' +
        'and the tests will start a throwaway one on a free port.',
    );
  }
  server = await throwawayRedis();
  return server.url;
}

export async function teardown(): Promise<void> {
  await Promise.all([server?.stop('SIGTERM'), cluster?.stop()]);
}

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
    /** `host:port` of each master of the test Redis Cluster. */
    redisClusterNodes: string[];
  }
}
