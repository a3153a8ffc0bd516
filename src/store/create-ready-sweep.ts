import type { Logger } from '../observability/logger.ts';
import type { Clock } from '../scheduler/clock.ts';
import type { QueueName, Store } from './store.ts';
import { storeOutage } from './store-outage.ts';

export interface ReadySweepOptions {
  store: Store;
  queue: QueueName;
  clock: Clock;
  logger: Logger;
  /** One partition is read per `everyMs`. */
  everyMs: number;
  /** False while lanes already claim in the partition: the sweep leaves it to them. */
  isQuiet(partition: number): boolean;
  /** Work can be claimed in the partition now, and nobody announced it. */
  wake(partition: number): void;
  /** Work becomes claimable in the partition at `at` (the clock's time). */
  wakeAt(partition: number, at: number): void;
}

export interface ReadySweep {
  start(): void;
  stop(): void;
}

/**
 * A consumer's safety net, for the work nobody announces: a dead process's lease that runs out,
 * a pub/sub message lost. Every `everyMs` it reads one quiet partition's next ready time
 * (`store.nextReadyAt`), in turn, and wakes the consumer for it, now or when it comes. Work found
 * already due is a sign of more (a dead process held several), so every partition is read then,
 * as at start, for the leases a process that died before this one started left behind. An idle
 * process thus makes one cheap read per `everyMs` per queue.
 */
export function createReadySweep(options: ReadySweepOptions): ReadySweep {
  const { store, logger, queue } = options;
  const outage = storeOutage(store);
  let next = 0;
  let interval: NodeJS.Timeout | undefined;
  let running = false;
  let sweeping = false;

  // True when the partition's earliest ready time has already come.
  async function lookAt(partition: number): Promise<boolean> {
    const at = await store.nextReadyAt(queue, partition);
    outage.answered(logger);
    if (at === null) return false;
    if (at > options.clock.now()) {
      options.wakeAt(partition, at);
      return false;
    }
    options.wake(partition);
    return true;
  }

  async function sweep(all: boolean): Promise<void> {
    if (sweeping || !running) return;
    sweeping = true;
    try {
      const partition = next;
      next = (next + 1) % store.partitions;
      if (!all) {
        if (!(options.isQuiet(partition) && (await lookAt(partition)))) return;
        logger.debug(
          { queue, partition },
          'the safety sweep found unannounced work; reading every partition',
        );
      }
      for (let p = 0; p < store.partitions && running; p++) await lookAt(p);
    } catch (error) {
      // A sweep cut short by a stop (the store closing) is no failure.
      if (running) outage.failed(logger, error, 'safety sweep failed; retrying', { queue });
    } finally {
      sweeping = false;
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      interval = setInterval(() => void sweep(false), options.everyMs);
      interval.unref();
      void sweep(true);
    },
    stop() {
      running = false;
      clearInterval(interval);
    },
  };
}
