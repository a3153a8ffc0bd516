/**
 * A location's send schedule as a driver keeps it: on Redis one schedule shared by every process
 * (`reserve-send-slot-2.lua`), in memory this process's own.
 */
export interface SlotSchedule {
  /**
   * Reserves `count` consecutive slots `interval` ms apart, the first at the latest of now, the
   * pause's end and the schedule's next free slot, and moves the next free slot past the last.
   * Resolves to the ms to wait before the first slot, rounded up (0: now); the k-th (from 0) is
   * k × `interval` after it.
   */
  reserve(count: number, interval: number): Promise<number>;
  /** The ms the schedule's pause still lasts (0: none). */
  pausedFor(): Promise<number>;
  /** Pauses the schedule for `ms` from now: no slot of any process before its end. */
  pause(ms: number): Promise<void>;
}

export type SendScheduleOptions = ({ perSecond: number } | { interval: number }) & {
  /** How late a held slot may still be spent (ms); older ones are dropped, never spent. */
  toleranceMs?: number;
  /** The most slots one reservation takes. */
  maxBatch?: number;
  /** The local clock the held slots are kept on (ms, monotonic by default). */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
};

/** Slots one reservation takes at most: as many as fit in `toleranceMs`, between 1 and `maxBatch`. */
export function batchSize(interval: number, toleranceMs: number, maxBatch: number): number {
  const fit = interval > 0 ? Math.floor(toleranceMs / interval) : maxBatch;
  return Math.max(1, Math.min(maxBatch, fit));
}

/**
 * Turns a slot schedule into a waiting `acquire`, shared by both drivers' send limiters.
 *
 * At a high rate a round trip per request would sit on the sender's critical path, so one
 * reservation takes a batch of consecutive slots, `floor(toleranceMs / interval)` of them (between
 * 1 and `maxBatch`: 1 below 100/s with the defaults, i.e. one reservation per request; 2 at
 * 100/s; 20 at 1,000/s; 64 from 3,200/s), and this process keeps them on its own clock (reply time + wait +
 * k × interval, never earlier than the schedule's). `acquire` takes the next held slot: one more
 * than `toleranceMs` in the past is dropped (budget left unused, never spent late), one in the
 * future is waited for. Only when no held slot is usable does it reserve again, and concurrent
 * `acquire`s share that one reservation and take its slots first come, first served. A
 * reservation takes at most twice the slots the previous one put to use (and at least one per
 * waiting `acquire`), so a process that sends seldom does not hold budget that others need.
 *
 * So a request goes out no earlier than its slot and at most `toleranceMs` after it on this
 * process's clock (which reads a slot late by up to the reservation's round trip, never early;
 * add timer lateness, and after a long wait the pause check's round trip): in any window of W ms
 * all processes together send at most rate × (W + toleranceMs) + 1, i.e. rate × (W + 20 ms) + 1
 * with the default.
 *
 * Pauses: `pause` moves the schedule past the pause for every process and drops the slots held
 * here that fall before its end. After a wait longer than `toleranceMs`, `acquire` asks whether
 * the schedule was paused meanwhile (a 429 seen by another process) and, if so, waits for the
 * pause's end and starts again (before batching every wait was checked, however short). A slot
 * taken with a shorter wait (e.g. a held slot already due) is not checked: a 429 seen by another process reaches this one at its next
 * reservation or long wait, i.e. within a few `toleranceMs` at a high rate, since the slots of
 * one reservation span at most `toleranceMs`.
 */
export function limiterFromSchedule(schedule: SlotSchedule, options: SendScheduleOptions) {
  const interval = 'interval' in options ? options.interval : 1000 / options.perSecond;
  const toleranceMs = options.toleranceMs ?? 20;
  const most = batchSize(interval, toleranceMs, options.maxBatch ?? 64);
  const now = options.now ?? (() => performance.now());
  const sleep =
    options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));

  /** The local times of the slots held, ascending (one reservation's, all from the same batch). */
  const held: number[] = [];
  /** Slots of the latest reservation handed out (the first reservation takes the most). */
  let used = most;
  let reserving = false;
  /** The end of the latest pause this process heard of, on the local clock. */
  let pausedUntil = Number.NEGATIVE_INFINITY;
  const waiters: Array<{ resolve(slot: number): void; reject(error: unknown): void }> = [];

  /** Drops the held slots too old to spend or inside a pause (both are the first ones). */
  const dropUnusable = () => {
    const floor = Math.max(now() - toleranceMs, pausedUntil);
    let drop = 0;
    while (drop < held.length && held[drop]! < floor) drop++;
    if (drop > 0) held.splice(0, drop);
  };

  /** Hands held slots to the waiters in order; reserves more if some still wait and none is on its way. */
  const serve = () => {
    dropUnusable();
    while (waiters.length > 0 && held.length > 0) {
      used++;
      waiters.shift()!.resolve(held.shift()!);
    }
    if (waiters.length === 0 || reserving) return;
    reserving = true;
    const count = Math.min(most, Math.max(1, waiters.length, 2 * used));
    schedule.reserve(count, interval).then(
      (wait) => {
        reserving = false;
        used = 0;
        const first = now() + wait;
        for (let k = 0; k < count; k++) held.push(first + k * interval);
        serve();
      },
      (error: unknown) => {
        reserving = false;
        for (const waiter of waiters.splice(0)) waiter.reject(error);
      },
    );
  };

  const pauseHere = (ms: number) => {
    pausedUntil = Math.max(pausedUntil, now() + ms);
    dropUnusable();
  };

  return {
    async acquire(): Promise<void> {
      for (;;) {
        const slot = await new Promise<number>((resolve, reject) => {
          waiters.push({ resolve, reject });
          serve();
        });
        const wait = slot - now();
        if (wait <= 0) return;
        // A timer may fire a little early on this clock: never go before the slot.
        for (let left = wait; left > 0; left = slot - now()) await sleep(left);
        if (slot < pausedUntil) continue;
        if (wait <= toleranceMs) return;
        const paused = await schedule.pausedFor();
        if (paused <= 0) return;
        pauseHere(paused);
        await sleep(paused);
      }
    },
    async pause(ms: number): Promise<void> {
      pauseHere(ms);
      await schedule.pause(ms);
    },
  };
}
