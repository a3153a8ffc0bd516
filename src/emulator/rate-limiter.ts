import type { RequestHandler } from 'express';
import { arrivalTime } from './arrival-time.ts';
import { authenticatedKeyPair } from './authenticate.ts';
import { apiErrorCodes, EmulatorApiError } from './emulator-api-error.ts';

const windowMs = 1000;

/**
 * At most `perSecond` accepted requests per key pair in any sliding window of one second (a
 * sliding log, exact rather than approximate, so a client that keeps to the limit is never
 * refused). Refused requests do not count. The window is real time: `timeScale` does not
 * apply, since a client's rate is measured in real seconds.
 */
export class RateLimiter {
  readonly #accepted = new Map<string, number[]>();

  constructor(public perSecond: number) {}

  /** Takes a slot for `key` at `now`; returns 0 when accepted, otherwise the ms until one frees up. */
  take(key: string, now: number): number {
    if (this.perSecond === Number.POSITIVE_INFINITY) return 0;
    let times = this.#accepted.get(key);
    if (!times) {
      times = [];
      this.#accepted.set(key, times);
    }
    const firstInWindow = times.findIndex((t) => t > now - windowMs);
    times.splice(0, firstInWindow === -1 ? times.length : firstInWindow);
    if (times.length >= this.perSecond) {
      const oldest = times[times.length - Math.floor(this.perSecond)] ?? now;
      return Math.max(1, oldest + windowMs - now);
    }
    times.push(now);
    return 0;
  }

  clear(): void {
    this.#accepted.clear();
  }

  /** Answers 429 with `Retry-After` (whole seconds, at least 1) beyond the limit. */
  middleware(): RequestHandler {
    return (_req, res, next) => {
      const waitMs = this.take(authenticatedKeyPair(res).id, arrivalTime(res));
      if (waitMs === 0) return next();
      res.set('Retry-After', String(Math.max(1, Math.ceil(waitMs / 1000))));
      next(
        new EmulatorApiError(
          429,
          apiErrorCodes.RATE_LIMITED,
          `more than ${this.perSecond} requests per second with this key pair; retry after ${waitMs} ms`,
        ),
      );
    };
  }
}
