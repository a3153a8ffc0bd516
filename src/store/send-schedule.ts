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

/** How a request waits for its slot. */
export interface AcquireOptions {
  /**
   * Traffic the bot started on its own (a campaign, a timer): it gives way to requests without
   * it, which are answers to people (see `limiterFromSchedule`).
   */
  bulk?: boolean;
}

interface Waiter {
  resolve(slot: number): void;
  reject(error: unknown): void;
  bulk: boolean;
}

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
 * `acquire`s share that one reservation and take its slots first come, first served (answers
 * before bulk requests, below). A
 * reservation takes at most twice the slots the previous one put to use (and at least one per
 * waiting `acquire`), so a process that sends seldom does not hold budget that others need.
 *
 * So a request goes out no earlier than its slot and at most `toleranceMs` after it on this
 * process's clock (which reads a slot late by up to the reservation's round trip, never early;
 * add timer lateness, and after a long wait the pause check's round trip): in any window of W ms
 * all processes together send at most rate × (W + toleranceMs) + 1, i.e. rate × (W + 20 ms) + 1
 * with the default.
 *
 * Answers first (DESIGN §3, "Two lanes to the service"): an `acquire({ bulk: true })` (a message
 * the bot sent on its own: a campaign's, a timer's) gives way to the others. Held slots go to the
 * waiting answers first, and this process keeps at most one batch of slots (one below 100/s, at
 * most `toleranceMs` of them above) handed to bulk requests that have not reached them yet; the
 * next bulk request gets its slot only once one of those is reached. So an
 * answer that comes while a campaign keeps the schedule full waits behind at most one batch of
 * bulk slots per process sending for the location (and the slots other answers hold), not
 * behind every bulk request waiting: 32 of them reserved 32 consecutive slots before (1.6 s at
 * 20/s). A bulk request still reserves the next free slot when its turn comes, so bulk traffic
 * alone keeps the full rate.
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
  const waiters: Waiter[] = [];
  /** Bulk requests waiting for a slot: served once no answer waits and fewer than `most` bulk slots are out. */
  const bulkWaiters: Waiter[] = [];
  /** Slots handed to bulk requests and not reached yet. */
  let bulkOut = 0;

  /** Drops the held slots too old to spend or inside a pause (both are the first ones). */
  const dropUnusable = () => {
    const floor = Math.max(now() - toleranceMs, pausedUntil);
    let drop = 0;
    while (drop < held.length && held[drop]! < floor) drop++;
    if (drop > 0) held.splice(0, drop);
  };

  /** The next waiter a slot may go to: an answer, else a bulk request while few bulk slots are out. */
  const nextWaiter = () => waiters.shift() ?? (bulkOut < most ? bulkWaiters.shift() : undefined);

  /** Hands held slots to the waiters in order; reserves more if some still wait and none is on its way. */
  const serve = () => {
    dropUnusable();
    while (held.length > 0) {
      const waiter = nextWaiter();
      if (!waiter) break;
      used++;
      if (waiter.bulk) bulkOut++;
      waiter.resolve(held.shift()!);
    }
    const wanting = waiters.length + Math.min(bulkWaiters.length, Math.max(0, most - bulkOut));
    if (wanting === 0 || reserving) return;
    reserving = true;
    const count = Math.min(most, Math.max(1, wanting, 2 * used));
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
        for (const waiter of [...waiters.splice(0), ...bulkWaiters.splice(0)]) {
          waiter.reject(error);
        }
      },
    );
  };

  /** A bulk slot was reached (or given up): the next bulk request may have one. */
  const bulkReached = () => {
    bulkOut--;
    serve();
  };

  const pauseHere = (ms: number) => {
    pausedUntil = Math.max(pausedUntil, now() + ms);
    dropUnusable();
  };

  return {
    /** Waits for this request's slot; `bulk`: bot-initiated traffic, which gives way to the rest. */
    async acquire(options?: AcquireOptions): Promise<void> {
      const bulk = options?.bulk === true;
      for (;;) {
        const slot = await new Promise<number>((resolve, reject) => {
          (bulk ? bulkWaiters : waiters).push({ resolve, reject, bulk });
          serve();
        });
        const wait = slot - now();
        // A timer may fire a little early on this clock: never go before the slot.
        for (let left = wait; left > 0; left = slot - now()) await sleep(left);
        if (bulk) bulkReached();
        if (wait <= 0) return;
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
