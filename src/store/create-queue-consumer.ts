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
   * the claim (or let its lease run out). `claimedAt`: when the claim's lease began.
   */
  handle(claim: ClaimWithView<Q>, claimedAt: number): Promise<void>;
}

/**
 * Where claims made elsewhere in the process go: a consumer's lanes, handled before they look in
 * the store again. The maker holds places first, so concurrent makers never claim more than
 * the lanes can take: `reserve`, make the claims, `offer` each into a held place, `unreserve`
 * the places no claim came for.
 */
export interface HandOff<Q extends QueueName> {
  /** Holds up to `wanted` places (none once stopped); returns how many it holds. */
  reserve(wanted: number): number;
  /** Takes a claim into a held place; false when the consumer stopped meanwhile (the caller releases it). */
  offer(claim: ClaimWithView<Q>, claimedAt: number): boolean;
  unreserve(count: number): void;
}

export interface QueueConsumer<Q extends QueueName = QueueName> extends HandOff<Q> {
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
/** Claims a lane may take for other lanes in one round trip, on top of its own. */
const extraClaims = 3;

export function createQueueConsumer<Q extends QueueName>(
  options: QueueConsumerOptions<Q>,
): QueueConsumer<Q> {
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
  // Claims offered by this process, handled before the next look at the store.
  const offered: Array<{ claim: ClaimWithView<Q>; claimedAt: number }> = [];
  // Places held for claims still being made (`reserve`).
  let reserved = 0;
  const free = () => options.concurrency - offered.length - reserved;

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
        // A lane that failed while stopping ends now: nothing would wake it from its back-off.
        if (running) await wake.wait(Math.min(100 * 2 ** failures, 5_000));
      }
    }
  }

  async function scan(offset: number): Promise<boolean> {
    if (options.clock.now() >= rescanAt) rescanAll();
    let found = await handleOffered();
    for (let i = 0; i < store.partitions && running; i++) {
      const partition = (offset + i) % store.partitions;
      if (quiet[partition]) continue;
      const seen = announced[partition];
      const claimedAt = options.clock.now();
      // Behind, a lane takes a few more claims in the same round trip, queued for the lanes
      // as they come free (no more than their free places, at most `extraClaims`).
      const extra = Math.min(extraClaims, Math.max(0, free()));
      const [claim, ...more] = await store.claimMany(
        options.queue,
        partition,
        options.leaseMs,
        claimedAt,
        1 + extra,
      );
      if (!claim) {
        if (announced[partition] === seen) quiet[partition] = true;
      } else {
        found = true;
        for (const next of more) {
          offered.push({ claim: next, claimedAt });
          wake.notify();
        }
        await options.handle(claim, claimedAt);
      }
      if (await handleOffered()) found = true;
    }
    return found;
  }

  async function handleOffered(): Promise<boolean> {
    let any = false;
    // Looks at `running` before taking a claim: one taken after a stop would be neither
    // handled nor released (stop() releases only what is still in `offered`), and its outbox
    // would wait out the lease and the in-doubt grace after a restart.
    while (running && offered.length > 0) {
      const next = offered.shift()!;
      any = true;
      await options.handle(next.claim, next.claimedAt);
    }
    return any;
  }

  return {
    get running() {
      return running;
    },
    reserve(wanted) {
      const held = running ? Math.max(0, Math.min(wanted, free())) : 0;
      reserved += held;
      return held;
    },
    offer(claim, claimedAt) {
      reserved = Math.max(0, reserved - 1);
      if (!running) return false;
      offered.push({ claim, claimedAt });
      wake.notify();
      return true;
    },
    unreserve(count) {
      reserved = Math.max(0, reserved - count);
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
      // Offered claims no lane took: give them back so that any process may take them at once.
      const left = offered.splice(0);
      await Promise.all(
        left.map(({ claim }) =>
          store.release(claim, options.clock.now()).catch((error: unknown) => {
            logger.warn(
              { err: error },
              'could not release an offered claim; its lease will expire',
            );
          }),
        ),
      );
    },
  };
}
