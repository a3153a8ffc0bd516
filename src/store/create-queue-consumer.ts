import type { Logger } from '../observability/logger.ts';
import type { Clock } from '../scheduler/clock.ts';
import { createWakeSignal } from './create-wake-signal.ts';
import type { Claim, QueueName, Store } from './store.ts';

export interface QueueConsumerOptions {
  store: Store;
  queue: QueueName;
  clock: Clock;
  logger: Logger;
  /** Claims handled at once by this process. */
  concurrency: number;
  leaseMs: number;
  /** Longest sleep between scans when no ready signal arrives. */
  idleMs: number;
  /** Does the work of one claim; it must release the claim (or let its lease run out). */
  handle(claim: Claim): Promise<void>;
}

export interface QueueConsumer {
  start(): void;
  /** Stops claiming; resolves once every lane has finished the claim it holds. */
  stop(): Promise<void>;
  readonly running: boolean;
}

/**
 * Runs `concurrency` lanes that scan the queue's partitions for ready conversations, each lane
 * starting at a different partition so they spread out. Idle lanes sleep until the store says
 * work may be ready or `idleMs` passes, instead of polling in a tight loop. A failing lane backs
 * off and keeps going: the process never stops on a store error.
 */
export function createQueueConsumer(options: QueueConsumerOptions): QueueConsumer {
  const { store, logger } = options;
  const wake = createWakeSignal();
  let running = false;
  let lanes: Promise<void>[] = [];
  let unsubscribe = () => {};

  async function lane(offset: number): Promise<void> {
    let failures = 0;
    while (running) {
      try {
        const found = await scan(offset);
        failures = 0;
        if (!found) await wake.wait(options.idleMs);
      } catch (error) {
        failures++;
        logger.error({ err: error, queue: options.queue }, 'queue lane failed; backing off');
        await wake.wait(Math.min(100 * 2 ** failures, 5_000));
      }
    }
  }

  async function scan(offset: number): Promise<boolean> {
    let found = false;
    for (let i = 0; i < store.partitions && running; i++) {
      const partition = (offset + i) % store.partitions;
      const claim = await store.claim(
        options.queue,
        partition,
        options.leaseMs,
        options.clock.now(),
      );
      if (!claim) continue;
      found = true;
      await options.handle(claim);
    }
    return found;
  }

  return {
    get running() {
      return running;
    },
    start() {
      if (running) return;
      running = true;
      unsubscribe = store.onReady((queue) => {
        if (queue === options.queue) wake.notify();
      });
      lanes = Array.from({ length: options.concurrency }, (_, i) =>
        lane(Math.floor((i * store.partitions) / options.concurrency)),
      );
    },
    async stop() {
      running = false;
      unsubscribe();
      wake.notifyAll();
      await Promise.all(lanes);
    },
  };
}
