import type { Logger } from '../observability/logger.ts';
import type { Store } from '../store/store.ts';
import type { Clock } from './clock.ts';

export interface SchedulerOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** How often due timers are looked for, in real time; the firing precision. Default 250 ms. */
  intervalMs?: number;
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
}

/**
 * Fires durable timers: every `intervalMs`, moves the timers due by the clock into their
 * conversations' mailboxes, where the worker takes them like any other event. Each move is
 * atomic in the store, so any number of processes can run a scheduler and a timer still fires
 * once. Memory does not grow with the number of timers: they live in the store.
 */
export function createScheduler(options: SchedulerOptions): Scheduler {
  const { store, clock, logger } = options;
  const intervalMs = options.intervalMs ?? 250;
  const batch = options.batch ?? 500;
  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<number> | undefined;

  async function sweep(): Promise<number> {
    let moved = 0;
    for (let partition = 0; partition < store.partitions; partition++) {
      for (;;) {
        const count = await store.claimDueTimers(partition, clock.now(), batch);
        moved += count;
        if (count > 0) options.onFired?.(count);
        if (count < batch) break;
      }
    }
    return moved;
  }

  function tick(): Promise<number> {
    // One sweep at a time per process; a tick during a sweep waits for it, then sweeps again.
    const run = (sweeping ?? Promise.resolve(0)).catch(() => 0).then(sweep);
    sweeping = run;
    const clear = () => {
      if (sweeping === run) sweeping = undefined;
    };
    run.then(clear, clear);
    return run;
  }

  return {
    tick,
    start() {
      if (timer) return;
      timer = setInterval(() => {
        if (sweeping) return;
        tick().catch((error: unknown) =>
          logger.error({ err: error }, 'scheduler sweep failed; retrying'),
        );
      }, intervalMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await sweeping?.catch(() => 0);
    },
  };
}
