import { type RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';

/** A location's request budget, shared by every process that sends for it. */
export interface SharedLimiter {
  /** Waits until a request may go out under the location's rate. */
  acquire(): Promise<void>;
  /** Holds every process back for `ms` (the service answered 429 with `Retry-After`). */
  pause(ms: number): Promise<void>;
}

/**
 * The window shape for a rate: `ceil(rate / 10)` points per `points / rate` seconds, i.e. about
 * a tenth of a second. A one-second fixed window would let up to twice the rate through across
 * a window edge; with windows this short any 5 s span holds at most 5 s × rate + one window,
 * about 2 % over, instead of 20 %.
 */
export function windowFor(perSecond: number): { points: number; duration: number } {
  const points = Math.max(1, Math.ceil(perSecond / 10));
  return { points, duration: points / perSecond };
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
