import type { Clock } from '../scheduler/clock.ts';

/**
 * The longest a wake-up sleeps before it looks at the clock again. A manual or dev clock that
 * jumps ahead is then seen within this long, and a far time never overflows `setTimeout`.
 */
const longestSleepMs = 1_000;

export interface WakeTimes {
  /** Calls `onDue(partition)` once the clock reaches `at`. */
  add(partition: number, at: number): void;
  /** Forgets every pending wake-up and its timer. */
  clear(): void;
}

/**
 * The times at which work this process deferred becomes ready, per partition: one real timer
 * for the earliest, so a consumer that deferred a retry, a hold or a doubt claims it on time
 * without polling the store. Due times are judged by the injected clock; the timer only says
 * when to look, and never keeps the process alive.
 */
export function createWakeTimes(clock: Clock, onDue: (partition: number) => void): WakeTimes {
  // Sorted by time, soonest first.
  const pending: Array<{ at: number; partition: number }> = [];
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Number.POSITIVE_INFINITY;

  function arm(): void {
    const first = pending[0];
    if (!first) return;
    const wait = Math.min(Math.max(0, first.at - clock.now()), longestSleepMs);
    if (timer && timerAt <= Date.now() + wait) return;
    clearTimeout(timer);
    timerAt = Date.now() + wait;
    timer = setTimeout(fire, wait);
    timer.unref();
  }

  function fire(): void {
    timer = undefined;
    timerAt = Number.POSITIVE_INFINITY;
    const now = clock.now();
    let due = 0;
    while (due < pending.length && pending[due]!.at <= now) due++;
    const partitions = new Set(pending.splice(0, due).map((entry) => entry.partition));
    for (const partition of partitions) onDue(partition);
    arm();
  }

  return {
    add(partition, at) {
      // Binary search for the first entry later than `at`: equal times keep their order.
      let low = 0;
      let high = pending.length;
      while (low < high) {
        const mid = (low + high) >>> 1;
        if (pending[mid]!.at <= at) low = mid + 1;
        else high = mid;
      }
      pending.splice(low, 0, { at, partition });
      arm();
    },
    clear() {
      pending.length = 0;
      clearTimeout(timer);
      timer = undefined;
      timerAt = Number.POSITIVE_INFINITY;
    },
  };
}
