import type { Logger } from '../observability/logger.ts';
import { reconnectDelayMs } from '../store/redis/connect-redis.ts';
import type { RedisConnection } from '../store/redis/redis-store-context.ts';
import type { StoreOutage } from '../store/store-outage.ts';

/**
 * Logs each failed attempt to connect to Redis as one line, without a stack: the address, what
 * went wrong, when the next attempt is, and what to check, with `code: STORE_UNAVAILABLE`. The
 * attempts back off (`reconnectDelayMs`), and so do the lines. Meanwhile the store's callers log
 * the failures this outage causes at `debug` only (`outage.reported`); the first answer after
 * it is logged once.
 */
export function reportRedisConnection(
  redis: RedisConnection,
  options: { logger: Logger; outage: StoreOutage; variable: string; address: string },
): void {
  const { logger, outage, variable, address } = options;
  let attempt = 0;
  let lastError = 'the connection closed';
  redis.on('error', (error: unknown) => {
    lastError = errorText(error);
    // Said by the attempt's line, which follows: not again by each caller failing meanwhile.
    outage.reported();
  });
  // One per failed attempt, after its error: the wait given is the one before the next.
  redis.on('reconnecting', (delay?: unknown) => {
    attempt++;
    const nextMs = typeof delay === 'number' ? delay : reconnectDelayMs(attempt);
    logger.error(
      { code: 'STORE_UNAVAILABLE', address, attempt, retryInMs: nextMs },
      `Redis at ${address} cannot be reached (${lastError}); trying again in ${formatWait(nextMs)}: check ${variable} and that Redis runs and accepts connections from this host`,
    );
    lastError = 'the connection closed';
  });
  redis.on('ready', () => {
    attempt = 0;
    outage.answered(logger);
  });
}

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // A Cluster says only that no node answered; the node's own error says why.
  const last = (error as { lastNodeError?: unknown }).lastNodeError;
  return last instanceof Error ? `${error.message} ${last.message}` : error.message;
}

function formatWait(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${ms / 1_000} s`;
}
