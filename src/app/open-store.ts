import { Redis } from 'ioredis';
import type { Logger } from '../observability/logger.ts';
import { createMemoryStore } from '../store/memory/create-memory-store.ts';
import {
  connectRedisCluster,
  createRedisStore,
  redisOptionsForStore,
} from '../store/redis/create-redis-store.ts';
import type { RedisConnection } from '../store/redis/redis-store-context.ts';
import type { Store } from '../store/store.ts';
import type { AppConfig } from './config.ts';

/**
 * The store the configuration asks for: Redis at `REDIS_URL`, or the Redis Cluster of
 * `REDIS_CLUSTER_NODES` (with the connection, which the caller closes), or the in-memory store
 * with a warning.
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
  const variable = nodes ? 'REDIS_CLUSTER_NODES' : 'REDIS_URL';
  const redis: RedisConnection = nodes
    ? connectRedisCluster(nodes)
    : new Redis(config.redisUrl!, redisOptionsForStore());
  // Failed calls surface as StoreUnavailableError where they happen; this only reports the
  // connection's state, once per outage rather than once per reconnect attempt.
  let down = false;
  redis.on('error', (error: unknown) => {
    if (!down) logger.error({ err: error }, `Redis connection lost; retrying (check ${variable})`);
    down = true;
  });
  redis.on('ready', () => {
    if (down) logger.info('Redis connection back');
    down = false;
  });
  const store = createRedisStore({
    redis,
    prefix: config.redisPrefix,
    partitions: config.redisPartitions,
    retention: { conversationsMs: config.retentionMs, resultsMs: config.resultsRetentionMs },
    onError: (error) => logger.warn({ err: error }, 'store background error'),
  });
  return { store, redis };
}
