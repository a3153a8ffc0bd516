import type { RedisOptions } from 'ioredis';

/**
 * ioredis options under which a down or unreachable Redis fails store calls in about a second
 * instead of queueing them for minutes (ioredis's defaults: 20 retries per command, offline
 * queue, 10 s connect timeout), so the webhook can answer 503 while the service still waits
 * and retries. Commands issued while reconnecting still wait for one reconnect attempt, which
 * rides out a short blip (a failover, a restart) without errors.
 *
 * @example
 * const redis = new Redis(config.redisUrl, redisOptionsForStore());
 * const store = createRedisStore({ redis });
 */
export function redisOptionsForStore(overrides: RedisOptions = {}): RedisOptions {
  return {
    // Fail the queued commands after every second failed reconnect attempt.
    maxRetriesPerRequest: 1,
    // A reconnect attempt every 100 ms at first, then at most every 500 ms.
    retryStrategy: (times) => Math.min(100 * times, 500),
    // A blackholed host (no RST) fails the connect here, not after 10 s.
    connectTimeout: 1_000,
    // A Redis that accepts the connection but hangs (paused, swapping) fails the call here.
    commandTimeout: 2_000,
    ...overrides,
  };
}
