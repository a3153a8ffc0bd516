import type { Logger } from '../observability/logger.ts';
import type { Store } from '../store/store.ts';
import { storeOutage } from '../store/store-outage.ts';
import type { Clock } from './clock.ts';

export interface SchedulerOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  /**
   * The shortest time, in real time, between two rounds that move timers (default 100 ms):
   * timers due close together are moved by one round. The firing precision under load.
   */
  intervalMs?: number;
  /**
   * The safety read's pace (default 1 s): every `safetyMs` one partition's `nextTimerDue` is read
   * again, in turn, so timers this process was not told of (set by a process whose scheduler
   * died, or that runs none) are still found.
   */
  safetyMs?: number;
  /** Timers moved per store call. */
  batch?: number;
  /** Hears how many timers each store call moved into their mailboxes (metrics). */
  onFired?: (count: number) => void;
}

export interface Scheduler {
  start(): void;
  stop(): Promise<void>;
  /** Moves every timer due now into its mailbox; resolves to how many. Tests call it after moving the clock. */
  tick(): Promise<number>;
  /**
   * A timer due at `dueAt` was just committed in `partition` (this process's worker says so):
   * it is fired then, without waiting for the safety read to come round to its partition.
   */
  armed(partition: number, dueAt: number): void;
}

const none = Number.POSITIVE_INFINITY;

/**
 * Fires durable timers without polling: it reads each partition's earliest due time once at
 * start, keeps them here, and sleeps (one real timer, unref'd) until the earliest. Then it moves
 * that partition's due timers into their conversations' mailboxes, where the worker takes them
 * like any other event, and reads the partition's next due time. The worker of the process
 * tells it of each timer it commits (`armed`); a safety read of one partition per `safetyMs`
 * finds the others. Each move is atomic in the store, so any number of processes can run a
 * scheduler and a timer still fires once. Due times are judged by the injected clock; a sleep
 * never exceeds `safetyMs`, so a clock that jumps ahead is seen within that long.
 */
export function createScheduler(options: SchedulerOptions): Scheduler {
  const { store, clock, logger } = options;
  const outage = storeOutage(store);
  const intervalMs = options.intervalMs ?? 100;
  const safetyMs = options.safetyMs ?? 1_000;
  const batch = options.batch ?? 500;
  // Per partition: the earliest due time known here (none: no timer).
  const due: number[] = new Array(store.partitions).fill(none);
  // Per partition, while a read of it is in flight: the earliest timer armed meanwhile, which
  // that read may have missed.
  const armedDuringRead: Array<number | undefined> = new Array(store.partitions).fill(undefined);
  let known = false;
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let timerAt = none;
  let lastMoveAt = Number.NEGATIVE_INFINITY;
  let safetyAt = 0;
  let safetyNext = 0;
  let failures = 0;
  // One walk of the store at a time per process: a tick during a round waits for it.
  let work: Promise<unknown> = Promise.resolve();

  function exclusive<T>(walk: () => Promise<T>): Promise<T> {
    const run = work.then(walk);
    work = run.catch(() => undefined);
    return run;
  }

  async function read(partition: number): Promise<void> {
    armedDuringRead[partition] = none;
    try {
      const next = (await store.nextTimerDue(partition)) ?? none;
      outage.answered(logger);
      due[partition] = Math.min(next, armedDuringRead[partition] ?? none);
    } finally {
      armedDuringRead[partition] = undefined;
    }
  }

  async function fire(partition: number): Promise<number> {
    lastMoveAt = Date.now();
    let moved = 0;
    let claimedAt: number;
    for (;;) {
      claimedAt = clock.now();
      const count = await store.claimDueTimers(partition, claimedAt, batch);
      moved += count;
      if (count > 0) options.onFired?.(count);
      if (count < batch) break;
    }
    await read(partition);
    // Due by the time of the claim, yet not moved: the store's answer is not what the port
    // says. Looking again at the next safety read, not every `intervalMs`, keeps such a
    // partition from making an idle process busy.
    if (moved === 0 && due[partition]! <= claimedAt) {
      logger.warn({ partition }, 'a timer due was not moved; looking again later');
      due[partition] = claimedAt + safetyMs;
    }
    return moved;
  }

  /**
   * Fires the partitions at once: their calls are independent (one hash slot each), so a
   * backlog due together (after an outage, say) moves at Redis's pace rather than one round
   * trip after another, and on a Cluster across its masters. Every call has ended when this
   * does, failed or not, so a failed round never overlaps the next.
   */
  async function fireAll(partitions: readonly number[]): Promise<number> {
    const results = await Promise.allSettled(partitions.map((partition) => fire(partition)));
    let moved = 0;
    for (const result of results) {
      if (result.status === 'rejected') throw result.reason;
      moved += result.value;
    }
    return moved;
  }

  async function round(): Promise<void> {
    if (!known) {
      for (let partition = 0; partition < store.partitions; partition++) await read(partition);
      known = true;
    }
    const now = clock.now();
    const firing: number[] = [];
    for (let partition = 0; partition < store.partitions; partition++) {
      if (due[partition]! <= now) firing.push(partition);
    }
    if (running) await fireAll(firing);
    if (running && Date.now() >= safetyAt) {
      safetyAt = Date.now() + safetyMs;
      const partition = safetyNext;
      safetyNext = (safetyNext + 1) % store.partitions;
      await read(partition);
      if (due[partition]! <= clock.now()) await fire(partition);
    }
  }

  // Sets the one timer for the next round: the earliest due time, the next safety read, or a
  // back-off after a failure, whichever comes first, and never sooner than `intervalMs` after
  // the last round that moved timers.
  function plan(): void {
    if (!running) return;
    const realNow = Date.now();
    let wait = Math.min(Math.min(...due) - clock.now(), safetyAt - realNow, safetyMs);
    if (failures > 0) wait = Math.max(wait, Math.min(100 * 2 ** failures, 5_000));
    wait = Math.max(wait, lastMoveAt + intervalMs - realNow, 0);
    if (timer && timerAt <= realNow + wait) return;
    clearTimeout(timer);
    timerAt = realNow + wait;
    timer = setTimeout(onTimer, wait);
    timer.unref();
  }

  function onTimer(): void {
    timer = undefined;
    timerAt = none;
    if (!running) return;
    exclusive(round)
      .then(
        () => {
          failures = 0;
        },
        (error: unknown) => {
          failures++;
          outage.failed(logger, error, 'scheduler round failed; retrying');
        },
      )
      .then(plan);
  }

  function tick(): Promise<number> {
    const run = exclusive(async () => {
      const moved = await fireAll(Array.from({ length: store.partitions }, (_, p) => p));
      known = true;
      return moved;
    });
    run.then(plan, plan);
    return run;
  }

  let stopHearing = () => {};
  const scheduler: Scheduler = {
    tick,
    armed(partition, dueAt) {
      if (!(partition >= 0 && partition < store.partitions)) return;
      const during = armedDuringRead[partition];
      if (during !== undefined) armedDuringRead[partition] = Math.min(during, dueAt);
      if (dueAt < due[partition]!) {
        due[partition] = dueAt;
        plan();
      }
    },
    start() {
      if (running) return;
      running = true;
      // Timers other processes arm: this scheduler fires them on time should those die.
      stopHearing = store.onTimerArmed((partition, dueAt) => scheduler.armed(partition, dueAt));
      known = false;
      safetyAt = Date.now() + safetyMs;
      // The first round reads every partition's earliest due time.
      timerAt = Date.now();
      timer = setTimeout(onTimer, 0);
      timer.unref();
    },
    async stop() {
      running = false;
      stopHearing();
      clearTimeout(timer);
      timer = undefined;
      timerAt = none;
      await work;
    },
  };
  return scheduler;
}
