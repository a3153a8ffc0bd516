/**
 * A location's request budget, shared by every process that sends for it (the store's drivers
 * implement it: on Redis all processes draw from one schedule).
 */
export interface SharedLimiter {
  /**
   * Waits for this request's slot: slots are `1 / rate` apart across all processes. `bulk`
   * (bot-initiated traffic) gives way to answers (`limiterFromSchedule`).
   */
  acquire(options?: { bulk?: boolean }): Promise<void>;
  /** Holds every process back for `ms` (the service answered 429 with `Retry-After`). */
  pause(ms: number): Promise<void>;
}
