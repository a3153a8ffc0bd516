import { parseDuration } from '../bot/parse-duration.ts';
import type { Clock } from './clock.ts';

/** A clock that moves only when told to: tests `advance('24h')` instead of waiting. */
export interface ManualClock extends Clock {
  /** Moves the clock forward by a duration (`'25h'`, `'3d'`) or a number of ms. */
  advance(by: string | number): number;
  set(ms: number): void;
}

/**
 * @example
 * const clock = createManualClock(Date.parse('2026-11-21T09:00:00Z'));
 * clock.advance('25h');
 */
export function createManualClock(start = Date.now()): ManualClock {
  let now = start;
  return {
    now: () => now,
    advance(by) {
      const ms = typeof by === 'number' ? by : parseDuration(by);
      if (ms === undefined || ms < 0) throw new TypeError(`cannot advance a clock by '${by}'`);
      now += ms;
      return now;
    },
    set(ms) {
      now = ms;
    },
  };
}
