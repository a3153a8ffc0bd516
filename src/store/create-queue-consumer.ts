import type { Logger } from '../observability/logger.ts';
import type { Clock } from '../scheduler/clock.ts';
import { createWakeSignal } from './create-wake-signal.ts';
import type { ClaimWithView, QueueName, Store } from './store.ts';

export interface QueueConsumerOptions<Q extends QueueName = QueueName> {
  store: Store;
  queue: Q;
  clock: Clock;
  logger: Logger;
  /** Claims handled at once by this process. */
  concurrency: number;
  leaseMs: number;
  /** Longest sleep between scans when no ready signal arrives. */
  idleMs: number;
  /**
   * Does the work of one claim, starting from the view the claim came with; it must release
   * the claim (or let its lease run out).
   */
  handle(claim: ClaimWithView<Q>): Promise<void>;
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
 *
 * A partition where a claim found nothing is skipped until the store announces work there
 * (`onReady`), or until a full rescan: every `idleMs` of the clock, and whenever a lane slept
 * `idleMs` with nothing announced. Work that becomes ready unannounced (an expired lease, a
 * deferred message's time, a lost pub/sub message) is thus still found within about `idleMs`,
 * as before, while a busy process stops spending most of its claims on empty partitions.
 */
export function createQueueConsumer<Q extends QueueName>(
  options: QueueConsumerOptions<Q>,
): QueueConsumer {
  const { store, logger } = options;
  const wake = createWakeSignal();
  let running = false;
  let lanes: Promise<void>[] = [];
  let unsubscribe = () => {};
  // Per partition: true once a claim found nothing there and nothing was announced since.
  const quiet: boolean[] = new Array(store.partitions).fill(false);
  // Per partition: announcements so far, so a claim that raced one does not mark it quiet.
  const announced: number[] = new Array(store.partitions).fill(0);
  let rescanAt = 0;

  function rescanAll(): void {
    quiet.fill(false);
    rescanAt = options.clock.now() + options.idleMs;
  }

  async function lane(offset: number): Promise<void> {
    let failures = 0;
    while (running) {
      try {
        const found = await scan(offset);
        failures = 0;
        // Slept a whole idleMs with nothing announced: look everywhere again.
        if (!found && !(await wake.wait(options.idleMs))) rescanAll();
      } catch (error) {
        failures++;
        logger.error({ err: error, queue: options.queue }, 'queue lane failed; backing off');
        await wake.wait(Math.min(100 * 2 ** failures, 5_000));
      }
    }
  }

  async function scan(offset: number): Promise<boolean> {
    if (options.clock.now() >= rescanAt) rescanAll();
    let found = false;
    for (let i = 0; i < store.partitions && running; i++) {
      const partition = (offset + i) % store.partitions;
      if (quiet[partition]) continue;
      const seen = announced[partition];
      const claim = await store.claim(
        options.queue,
        partition,
        options.leaseMs,
        options.clock.now(),
      );
      if (!claim) {
        if (announced[partition] === seen) quiet[partition] = true;
        continue;
      }
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
      rescanAll();
      unsubscribe = store.onReady((queue, partition) => {
        if (queue !== options.queue) return;
        if (partition >= 0 && partition < store.partitions) {
          announced[partition] = (announced[partition] ?? 0) + 1;
          quiet[partition] = false;
        }
        wake.notify();
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
