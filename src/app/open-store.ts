import type { Logger } from '../observability/logger.ts';
import { createMemoryStore } from '../store/memory/create-memory-store.ts';
import { connectRedis } from '../store/redis/connect-redis.ts';
import { connectRedisCluster, createRedisStore } from '../store/redis/create-redis-store.ts';
import type { RedisConnection } from '../store/redis/redis-store-context.ts';
import type { Store } from '../store/store.ts';
import { storeOutage } from '../store/store-outage.ts';
import type { AppConfig } from './config.ts';
import { reportRedisConnection } from './report-redis-connection.ts';

/**
 * The store the configuration asks for: Redis at `REDIS_URL`, or the Redis Cluster of
 * `REDIS_CLUSTER_NODES` (with the connection, which the caller closes), or the in-memory store
 * with a warning. An unreachable Redis is logged once per connection attempt
 * (`reportRedisConnection`); what fails meanwhile elsewhere in the process is not logged again.
 */
export function openStore(
  config: AppConfig,
  logger: Logger,
): { store: Store; redis?: RedisConnection } {
  const nodes = config.redisClusterNodes;
  if (!config.redisUrl && !nodes) {
    logger.warn(
      'REDIS_URL is not set: using the in-memory store (one process; conversations are lost on exit)',
    );
    return { store: createMemoryStore({}) };
  }
  const redis: RedisConnection = nodes
    ? connectRedisCluster(nodes)
    : connectRedis(config.redisUrl!);
  const store = createRedisStore({
    redis,
    prefix: config.redisPrefix,
    partitions: config.redisPartitions,
    retention: { conversationsMs: config.retentionMs, resultsMs: config.resultsRetentionMs },
    onError: (error) => storeOutage(store).failed(logger, error, 'store background error'),
  });
  reportRedisConnection(redis, {
    logger,
    outage: storeOutage(store),
    variable: nodes ? 'REDIS_CLUSTER_NODES' : 'REDIS_URL',
    address: nodes ? nodes.join(',') : redisAddress(config.redisUrl!),
  });
  return { store, redis };
}

/** Where REDIS_URL points, without its password: `host:port`, or the socket's path. */
function redisAddress(url: string): string {
  if (url.startsWith('/')) return url.replace(/\?.*$/, '');
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || 6379}`;
}
