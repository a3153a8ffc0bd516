import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import {
  createSharedLimiter,
  limiterOptionsFor,
  type SharedLimiter,
} from '../outbox/create-shared-limiter.ts';
import type { LocationConfig } from './config.ts';

/**
 * One shared limiter per location, at the location's `rateLimitPerSecond`. On Redis every
 * process draws from the same budget; should Redis fail, each process falls back to an
 * in-memory limiter at the same rate (the insurance limiter) rather than stop sending.
 */
export function createSendLimiters(
  locations: readonly LocationConfig[],
  redis: Redis | undefined,
  prefix: string,
): Map<string, SharedLimiter> {
  return new Map(
    locations.map((location) => {
      const window = limiterOptionsFor(location.rateLimitPerSecond);
      const memory = new RateLimiterMemory({ ...window, keyPrefix: `${prefix}ratelimit` });
      const limiter = redis
        ? new RateLimiterRedis({
            ...window,
            storeClient: redis,
            keyPrefix: `${prefix}ratelimit`,
            insuranceLimiter: memory,
          })
        : memory;
      return [location.name, createSharedLimiter(limiter, location.name)];
    }),
  );
}
