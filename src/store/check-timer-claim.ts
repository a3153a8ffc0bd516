/**
 * Refuses the arguments of a `claimDueTimers` call that would break it: `now` becomes the
 * events' `receivedAt` in their JSON, so it must be a finite number, and `limit` bounds the
 * work of one atomic call, so it must be a positive integer.
 */
export function checkTimerClaim(now: number, limit: number): void {
  if (!Number.isFinite(now)) throw new RangeError(`now ${now} must be a finite number of ms`);
  if (!Number.isInteger(limit) || limit <= 0) {
    throw new RangeError(`limit ${limit} must be a positive integer`);
  }
}
