import { vi } from 'vitest';
import type { ManualClock } from '../../src/scheduler/create-manual-clock.ts';

/**
 * Moves vitest's fake timers (what the code under test sleeps on) and the manual clock (what the
 * store is told is `now`) forward together, 50 ms at a time, letting every timer and promise
 * that comes due run at its step.
 */
export async function advanceTogether(clock: ManualClock, ms: number): Promise<void> {
  for (let left = ms; left > 0; left -= 50) {
    const step = Math.min(50, left);
    clock.advance(step);
    await vi.advanceTimersByTimeAsync(step);
  }
}
