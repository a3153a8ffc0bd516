import type { Clock } from '../../scheduler/clock.ts';
import { limiterFromSchedule, type SlotSchedule } from '../send-schedule.ts';

/** One process's send schedule: slots reserved in order, pushed back by a pause. */
export function createMemorySlotSchedule(clock: Clock = { now: () => Date.now() }): SlotSchedule {
  let nextSlot = 0;
  let pausedUntil = 0;
  return {
    async reserve(count, interval) {
      const now = clock.now();
      const first = Math.max(now, pausedUntil, nextSlot);
      nextSlot = first + count * interval;
      return Math.ceil(first - now);
    },
    async pausedFor() {
      return Math.max(0, pausedUntil - clock.now());
    },
    async pause(ms) {
      const ends = clock.now() + ms;
      pausedUntil = Math.max(pausedUntil, ends);
      nextSlot = Math.max(nextSlot, ends);
    },
  };
}

/**
 * The send limiter of one location in one process: slots `1 / perSecond` apart, pushed back by a
 * pause. The Redis driver's limiter is the same schedule shared by every process.
 */
export function createMemorySendLimiter(
  perSecond: number,
  clock: Clock = { now: () => Date.now() },
) {
  return limiterFromSchedule(createMemorySlotSchedule(clock), {
    perSecond,
    now: () => clock.now(),
  });
}
