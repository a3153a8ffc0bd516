import type { RequestHandler, Response } from 'express';
import type { Clock } from '../scheduler/clock.ts';

/**
 * Stamps each request with its arrival time, once. The request log and the rate limiter read
 * the same stamp, so the rate a test measures from the log is exactly the rate that was limited.
 */
export function stampArrival(clock: Clock): RequestHandler {
  return (_req, res, next) => {
    res.locals.arrivedAt = clock.now();
    next();
  };
}

/** The arrival time `stampArrival` recorded, in ms since the epoch. */
export function arrivalTime(res: Response): number {
  const at = res.locals.arrivedAt as number | undefined;
  if (at === undefined) throw new Error('stampArrival() must run before this handler');
  return at;
}
