import type { SharedLimiter } from '../outbox/shared-limiter.ts';
import { createMemorySendLimiter } from '../store/memory/create-memory-send-limiter.ts';
import { createRedisSendLimiter } from '../store/redis/create-redis-send-limiter.ts';
import type { RedisConnection } from '../store/redis/redis-store-context.ts';
import type { LocationConfig } from './config.ts';

/**
 * One send limiter per location, at the location's `rateLimitPerSecond`: on Redis one schedule
 * that every process draws from; in memory (no REDIS_URL) this process's own.
 */
export function createSendLimiters(
  locations: readonly LocationConfig[],
  redis: RedisConnection | undefined,
  prefix: string,
): Map<string, SharedLimiter> {
  return new Map(
    locations.map((location) => [
      location.name,
      redis
        ? createRedisSendLimiter({
            redis,
            prefix,
            location: location.name,
            perSecond: location.rateLimitPerSecond,
          })
        : createMemorySendLimiter(location.rateLimitPerSecond),
    ]),
  );
}
