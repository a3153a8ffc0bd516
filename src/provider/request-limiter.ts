import { RateLimiterMemory, RateLimiterQueue } from 'rate-limiter-flexible';

/**
 * The port a client waits on before each request. The default is in-process; a later driver can
 * share one budget between processes (Redis) by implementing this one method.
 */
export interface RequestLimiter {
  /**
   * Resolves when a request may go out; rejects when the request cannot wait (queue full).
   * `bulk`: traffic the bot started on its own (a campaign's, a timer's), which gives way to the
   * rest where the limiter ranks requests (replyflow's shared send limiters do; this in-process
   * one serves every request first come, first served).
   */
  acquire(options?: { bulk?: boolean }): Promise<void>;
}

export interface RequestLimiterOptions {
  /** Requests per second; fractions are allowed (0.5 = one request every two seconds). */
  perSecond: number;
  /** Requests allowed to wait for a token; one more is refused at once. Default 1000. */
  maxQueue?: number;
}

export const defaultMaxQueue = 1000;

/**
 * An in-process limiter: requests are spaced evenly at `perSecond` and wait for their turn in a
 * bounded FIFO queue rather than failing (rate-limiter-flexible's `RateLimiterQueue` over a
 * `RateLimiterMemory`). Each client gets its own, because each location's key pair has its own
 * limit at the service (spec §1.4).
 *
 * @example
 * const limiter = createRequestLimiter({ perSecond: 10 });
 * await limiter.acquire(); // then send the request
 */
export function createRequestLimiter(options: RequestLimiterOptions): RequestLimiter {
  if (!(options.perSecond > 0) || !Number.isFinite(options.perSecond)) {
    throw new RangeError(`perSecond must be a positive number, got ${options.perSecond}`);
  }
  // One token every 1/perSecond seconds rather than perSecond tokens a second: the service's
  // window is not published (the emulator's slides), and a fixed one-second window lets twice
  // the rate through across its boundary. Evenly spaced requests stay within any window.
  const points = 1;
  const duration = 1 / options.perSecond;
  const queue = new RateLimiterQueue(new RateLimiterMemory({ points, duration }), {
    maxQueueSize: options.maxQueue ?? defaultMaxQueue,
  });
  return {
    async acquire() {
      await queue.removeTokens(1);
    },
  };
}
