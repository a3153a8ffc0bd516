import type { Clock } from '../scheduler/clock.ts';

/** The clock of `replyflow dev` and `replyflow chat`: real time, plus an offset moved on demand. */
export interface DevClock extends Clock {
  /** Moves the clock forward by `ms`; timers now due fire at once (the listener wakes the scheduler). */
  advance(ms: number): void;
  /** How far ahead of real time the clock is, in ms. */
  offset(): number;
}

/**
 * Time that runs as usual and can jump ahead, so a developer can see a 24 h reminder or a
 * 7-day expiry without waiting. Everything that reads this clock (the engine, the scheduler,
 * the sender) sees the jump; the scheduler reads it on each sweep, and `onAdvance` (given by
 * `startDev`) sweeps at once rather than at the next interval.
 */
export function createDevClock(
  onAdvance: () => void = () => {},
  realNow: () => number = Date.now,
): DevClock & { onAdvance(listener: () => void): void } {
  let offset = 0;
  let listener = onAdvance;
  return {
    now: () => realNow() + offset,
    offset: () => offset,
    advance(ms) {
      if (!Number.isFinite(ms) || ms < 0) {
        throw new RangeError(`cannot advance the clock by ${ms} ms: give a duration of 0 or more`);
      }
      offset += ms;
      listener();
    },
    onAdvance(next) {
      listener = next;
    },
  };
}
