import { RateLimiterMemory, RateLimiterQueue } from 'rate-limiter-flexible';

/**
 * The port a client waits on before each request. The default is in-process; a later driver can
 * share one budget between processes (Redis) by implementing this one method.
 */
export interface RequestLimiter {
  /** Resolves when a request may go out; rejects when the request cannot wait (queue full). */
  acquire(): Promise<void>;
}

export interface RequestLimiterOptions {
  /** Requests per second; fractions are allowed (0.5 = one request every two seconds). */
  perSecond: number;
  /** Requests allowed to wait for a token; one more is refused at once. Default 1000. */
  maxQueue?: number;
}

export const defaultMaxQueue = 1000;

/**
 * An in-process limiter: requests wait in a bounded FIFO queue for a token rather than failing
 * (rate-limiter-flexible's `RateLimiterQueue` over a `RateLimiterMemory`). Each client gets its
 * own, because each location's key pair has its own limit at the service (spec §1.4).
 *
 * @example
 * const limiter = createRequestLimiter({ perSecond: 10 });
 * await limiter.acquire(); // then send the request
 */
export function createRequestLimiter(options: RequestLimiterOptions): RequestLimiter {
  if (!(options.perSecond > 0) || !Number.isFinite(options.perSecond)) {
    throw new RangeError(`perSecond must be a positive number, got ${options.perSecond}`);
  }
  // Whole tokens per window: 10/s is 10 tokens a second, 0.5/s is 1 token every 2 seconds.
  const points = Math.max(1, Math.floor(options.perSecond));
  const duration = points / options.perSecond;
  const queue = new RateLimiterQueue(new RateLimiterMemory({ points, duration }), {
    maxQueueSize: options.maxQueue ?? defaultMaxQueue,
  });
  return {
    async acquire() {
      await queue.removeTokens(1);
    },
  };
}
