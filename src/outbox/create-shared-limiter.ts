import { type RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';

/** A location's request budget, shared by every process that sends for it. */
export interface SharedLimiter {
  /** Waits until a request may go out under the location's rate. */
  acquire(): Promise<void>;
  /** Holds every process back for `ms` (the service answered 429 with `Retry-After`). */
  pause(ms: number): Promise<void>;
}

/**
 * The limiter options for a rate: `perSecond` points a second, handed out evenly
 * (`execEvenly`: each grant waits for its share of what is left of the window). A plain fixed
 * window would let a whole second's budget through at each window's edge, up to twice the rate;
 * spread evenly, any 5 s span holds about 5 s × rate (101 for 100 measured with three processes
 * on one Redis). Sub-second windows are not an option: the Redis driver counts in whole seconds.
 */
export function limiterOptionsFor(perSecond: number) {
  return {
    points: perSecond,
    duration: 1,
    execEvenly: true,
    execEvenlyMinDelayMs: 1000 / perSecond,
  };
}

/**
 * Wraps a rate-limiter-flexible limiter (Redis-backed in production, so all processes share
 * it) as a waiting limiter: `acquire` sleeps until the window frees a point instead of failing.
 */
export function createSharedLimiter(
  limiter: RateLimiterAbstract,
  key: string,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): SharedLimiter {
  return {
    async acquire() {
      for (;;) {
        try {
          await limiter.consume(key, 1);
          return;
        } catch (rejection) {
          // A refusal is a RateLimiterRes; anything else is a store failure and propagates.
          if (!(rejection instanceof RateLimiterRes)) throw rejection;
          await sleep(Math.max(1, rejection.msBeforeNext));
        }
      }
    },
    async pause(ms) {
      await limiter.block(key, Math.max(ms, 1) / 1000);
    },
  };
}
