import type { Clock } from '../../scheduler/clock.ts';
import { limiterFromSchedule } from '../send-schedule.ts';

/**
 * The send limiter of one location in one process: slots `1 / perSecond` apart, pushed back by a
 * pause. The Redis driver's limiter is the same schedule shared by every process.
 */
export function createMemorySendLimiter(
  perSecond: number,
  clock: Clock = { now: () => Date.now() },
) {
  const interval = 1000 / perSecond;
  let nextSlot = 0;
  let pausedUntil = 0;
  return limiterFromSchedule({
    async reserve() {
      const now = clock.now();
      const slot = Math.max(now, pausedUntil, nextSlot);
      nextSlot = slot + interval;
      return Math.ceil(slot - now);
    },
    async pausedFor() {
      return Math.max(0, pausedUntil - clock.now());
    },
    async pause(ms) {
      const ends = clock.now() + ms;
      pausedUntil = Math.max(pausedUntil, ends);
      nextSlot = Math.max(nextSlot, ends);
    },
  });
}
