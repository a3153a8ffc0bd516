import { Redis, type RedisOptions } from 'ioredis';
import { redisOptionsForStore } from './redis-options-for-store.ts';

/**
 * The wait before reconnect attempt `attempt` (1, 2, …) to a Redis that went away: 250 ms,
 * doubled each time, at most 5 s. An unreachable Redis is tried, and each try logged, about a
 * dozen times a minute, not twice a second.
 */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(250 * 2 ** (attempt - 1), 5_000);
}

/**
 * A connection to one Redis for the store (REDIS_URL), with `redisOptionsForStore` and a
 * reconnect that backs off (`reconnectDelayMs`) without making calls wait for it. Calls made
 * while it connects or reconnects wait in ioredis's offline queue for the first two attempts
 * (a blip, a failover) and fail with them (`maxRetriesPerRequest: 1`); from the second failed
 * attempt on, until Redis is ready again, the queue is off and calls fail at once: the webhook
 * answers 503 in milliseconds, however long the wait for the next attempt.
 *
 * @example
 * const redis = connectRedis(process.env.REDIS_URL);
 * const store = createRedisStore({ redis });
 * // on shutdown:
 * await store.close();
 * await redis.quit();
 */
export function connectRedis(url: string, overrides: RedisOptions = {}): Redis {
  const redis = new Redis(
    url,
    redisOptionsForStore({ retryStrategy: reconnectDelayMs, ...overrides }),
  );
  if (redis.options.enableOfflineQueue === false) return redis;
  let failedAttempts = 0;
  // Emitted after the attempt's close, once `maxRetriesPerRequest` failed the calls queued.
  redis.on('reconnecting', () => {
    failedAttempts++;
    if (failedAttempts >= 2) redis.options.enableOfflineQueue = false;
  });
  redis.on('ready', () => {
    failedAttempts = 0;
    redis.options.enableOfflineQueue = true;
  });
  return redis;
}
