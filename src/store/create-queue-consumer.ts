import type { Logger } from '../observability/logger.ts';
import type { Clock } from '../scheduler/clock.ts';
import { createReadySweep } from './create-ready-sweep.ts';
import { createWakeSignal } from './create-wake-signal.ts';
import { createWakeTimes } from './create-wake-times.ts';
import type { ClaimWithView, QueueName, Store } from './store.ts';
import { storeOutage } from './store-outage.ts';

export interface QueueConsumerOptions<Q extends QueueName = QueueName> {
  store: Store;
  queue: Q;
  clock: Clock;
  logger: Logger;
  /** Claims handled at once by this process. */
  concurrency: number;
  leaseMs: number;
  /**
   * The safety sweep's pace: every `idleMs` one quiet partition's next ready time is read (in
   * turn), even though nothing was announced there, so work that became ready unannounced (a
   * dead process's expired lease, a lost pub/sub message) is still found. One read per `idleMs`
   * for the whole process, whatever the number of lanes: an idle process stays quiet.
   */
  idleMs: number;
  /**
   * Does the work of one claim, starting from the view the claim came with; it must release
   * the claim (or let its lease run out). `claimedAt`: when the claim's lease began.
   */
  handle(claim: ClaimWithView<Q>, claimedAt: number): Promise<void>;
  /**
   * Answers first (the sender): `isBulk` tells the claims of work that may wait (an outbox of
   * bot-initiated messages). `lanes` of the `concurrency` lanes are kept for the rest: they
   * claim answers only (`claimMany`'s `answersOnly`) and take no bulk claim offered, so however
   * many lanes wait with bot-initiated work, an answer is claimed as soon as it is ready. Every
   * lane takes the offered claims that are not bulk first.
   */
  answersFirst?: { isBulk(claim: ClaimWithView<Q>): boolean; lanes: number };
  /**
   * Places for claims handed over (`reserve`) on top of the `concurrency` ones, open while the
   * claims that waited are taken soon: as long as the last claim a lane took from those waiting
   * had waited at most `maxWaitMs` since its lease began. Without it a maker finds no place
   * once `concurrency` claims wait, and makes its work ready in the store instead, for a lane to
   * claim from there: the sender's commits then cost Redis a claim and a last look per outbox
   * (about 70–95 µs) instead of a hand-over's two commands (docs/benchmarks.md, "The sender's
   * backlog in the process"). Work waiting here is this process's alone: another one's lanes
   * cannot take it, so the wait is bounded (a lease is long; `maxWaitMs` should be a small part
   * of it).
   */
  handOffBacklog?: { places: number; maxWaitMs: number };
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
  /**
   * Work this process made ready at a later time (a release with `notBefore`, a deferred send)
   * is claimed in `partition` once the clock reaches `at`: no announcement comes for it, and the
   * safety sweep would find it late.
   */
  wakeAt(partition: number, at: number): void;
  /** Stops claiming; resolves once every lane has finished the claim it holds. */
  stop(): Promise<void>;
  readonly running: boolean;
}

/**
 * Claims a lane may take for other lanes in one round trip, on top of its own; never more than
 * the places free in the process. Behind a backlog (the reply-loop bench's drain) one call then
 * fills every free place: calls that took 9 conversations at once were common there.
 */
const extraClaims = 15;

/** How long an idle lane sleeps before it looks again at what it was told (no store call then). */
const laneSleepMs = 60_000;

/**
 * Runs `concurrency` lanes that claim ready conversations from the queue's partitions, each lane
 * starting at a different partition so they spread out. A failing lane backs off and keeps
 * going: the process never stops on a store error.
 *
 * A partition where a claim found nothing is quiet: skipped until something says work may be
 * there. Lanes with nothing to do sleep, making no store call, until one of these wakes them:
 * the store announces a partition (`onReady`), a claim is offered from elsewhere in the
 * process, or a time comes: one given to `wakeAt`, or a partition's next ready time read by the
 * safety sweep (`store.nextReadyAt`, one quiet partition per `idleMs`, round-robin; every
 * partition at start). A sweep that finds work nobody announced is a sign of more (a dead
 * process's leases, a lost pub/sub message): every partition is read again.
 */
export function createQueueConsumer<Q extends QueueName>(
  options: QueueConsumerOptions<Q>,
): QueueConsumer<Q> {
  const { store, logger } = options;
  const outage = storeOutage(store);
  const wake = createWakeSignal();
  // The answer lanes sleep apart: a bulk claim offered must wake a lane that can take it.
  const answerWake = createWakeSignal();
  const answerLanes = Math.min(options.answersFirst?.lanes ?? 0, options.concurrency - 1);
  const isBulk = (claim: ClaimWithView<Q>) => options.answersFirst?.isBulk(claim) === true;
  let running = false;
  let lanes: Promise<void>[] = [];
  let unsubscribe = () => {};
  // Per partition: true once a claim found nothing there and nothing was announced since.
  const quiet: boolean[] = new Array(store.partitions).fill(false);
  // The same for the answer lanes' claims (answers only): bot-initiated work may be there.
  const quietAnswers: boolean[] = new Array(store.partitions).fill(false);
  // Per partition: announcements so far, so a claim that raced one does not mark it quiet.
  const announced: number[] = new Array(store.partitions).fill(0);
  // Per partition: woken by a time (a wake time, the sweep), not an announcement. A claim that
  // then finds nothing there reads when the partition's next work comes, and wakes for it.
  const lookAhead: boolean[] = new Array(store.partitions).fill(false);
  // Per partition: a lane's claim is in flight there. Other lanes pass it by instead of claiming
  // beside it: that claim takes work for them too (`extraClaims`), and a burst of announcements
  // of one partition would otherwise send a lane per announcement, all but one finding nothing.
  const claiming: boolean[] = new Array(store.partitions).fill(false);
  const wakeTimes = createWakeTimes(options.clock, (partition) => wakeFor(partition));
  const sweep = createReadySweep({
    store,
    queue: options.queue,
    clock: options.clock,
    logger,
    everyMs: options.idleMs,
    isQuiet: (partition) => quiet[partition] === true,
    wake: wakeFor,
    wakeAt: (partition, at) => wakeTimes.add(partition, at),
  });
  // Claims offered by this process, handled before the next look at the store: those that are
  // not bulk first, each kind in the order offered.
  const offered: Array<{ claim: ClaimWithView<Q>; claimedAt: number; bulk: boolean }> = [];
  // Places held for claims still being made (`reserve`).
  let reserved = 0;
  const free = () => options.concurrency - offered.length - reserved;
  // How long the last claim a lane took from `offered` had waited there (since its lease began).
  let lastOfferedWaitMs = 0;
  // The places a maker may hold (`reserve`): the backlog's on top while the waits stay short.
  const handOffRoom = () => {
    const backlog = options.handOffBacklog;
    return backlog && lastOfferedWaitMs <= backlog.maxWaitMs ? free() + backlog.places : free();
  };

  function wakeFor(partition: number): void {
    quiet[partition] = false;
    quietAnswers[partition] = false;
    lookAhead[partition] = true;
    wake.notify();
    if (answerLanes > 0) answerWake.notify();
  }

  /** Queues a claim for the lanes: one that is not bulk before every bulk one, and wakes a lane that can take it. */
  function offerToLanes(claim: ClaimWithView<Q>, claimedAt: number): void {
    const bulk = isBulk(claim);
    const at = bulk ? offered.length : offered.findIndex((entry) => entry.bulk);
    offered.splice(at === -1 ? offered.length : at, 0, { claim, claimedAt, bulk });
    wake.notify();
    if (!bulk && answerLanes > 0) answerWake.notify();
  }

  /** An answer lane (`answers`) claims answers only and takes no bulk claim offered. */
  async function lane(offset: number, answers: boolean): Promise<void> {
    const signal = answers ? answerWake : wake;
    let failures = 0;
    while (running) {
      try {
        const found = await scan(offset, answers);
        failures = 0;
        // Not once stopped: a stop while this lane's scan was in flight woke only the lanes
        // asleep then, and this one would sleep its laneSleepMs, holding stop() up.
        if (!found && running) await signal.wait(laneSleepMs);
      } catch (error) {
        failures++;
        // Every lane meets a store outage: it is logged once for the process, not per lane.
        outage.failed(logger, error, 'queue lane failed; backing off', { queue: options.queue });
        // A lane that failed while stopping ends now: nothing would wake it from its back-off.
        if (running) await signal.wait(Math.min(100 * 2 ** failures, 5_000));
      }
    }
  }

  async function scan(offset: number, answers: boolean): Promise<boolean> {
    let found = await handleOffered(answers);
    const skip = answers ? quietAnswers : quiet;
    for (let i = 0; i < store.partitions && running; i++) {
      const partition = (offset + i) % store.partitions;
      if (skip[partition] || claiming[partition]) continue;
      const seen = announced[partition];
      const claimedAt = options.clock.now();
      // Behind, a lane takes a few more claims in the same round trip, queued for the lanes
      // as they come free (no more than their free places, at most `extraClaims`).
      const extra = Math.min(extraClaims, Math.max(0, free()));
      claiming[partition] = true;
      let claims: ClaimWithView<Q>[];
      try {
        claims = await store.claimMany(
          options.queue,
          partition,
          options.leaseMs,
          claimedAt,
          1 + extra,
          ...(answers ? [{ answersOnly: true }] : []),
        );
      } finally {
        claiming[partition] = false;
      }
      outage.answered(logger);
      const [claim, ...more] = claims;
      // Lanes passed this partition by while the claim was in flight: when it may hold more
      // (the claim took all it asked for, or more was announced meanwhile), one looks again.
      if (announced[partition] !== seen || claims.length === 1 + extra) {
        (answers ? answerWake : wake).notify();
      }
      if (!claim) {
        if (announced[partition] === seen) {
          quietAnswers[partition] = true;
          if (!answers) quiet[partition] = true;
        }
        if (!answers && lookAhead[partition]) {
          lookAhead[partition] = false;
          const at = await store.nextReadyAt(options.queue, partition);
          if (at !== null && at > options.clock.now()) wakeTimes.add(partition, at);
        }
      } else {
        found = true;
        for (const next of more) offerToLanes(next, claimedAt);
        await options.handle(claim, claimedAt);
      }
      if (await handleOffered(answers)) found = true;
    }
    return found;
  }

  async function handleOffered(answers: boolean): Promise<boolean> {
    let any = false;
    // Looks at `running` before taking a claim: one taken after a stop would be neither
    // handled nor released (stop() releases only what is still in `offered`), and its outbox
    // would wait out the lease and the in-doubt grace after a restart.
    while (running && offered.length > 0 && !(answers && offered[0]!.bulk)) {
      const next = offered.shift()!;
      lastOfferedWaitMs = options.clock.now() - next.claimedAt;
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
      const held = running ? Math.max(0, Math.min(wanted, handOffRoom())) : 0;
      reserved += held;
      return held;
    },
    offer(claim, claimedAt) {
      reserved = Math.max(0, reserved - 1);
      if (!running) return false;
      offerToLanes(claim, claimedAt);
      return true;
    },
    unreserve(count) {
      reserved = Math.max(0, reserved - count);
    },
    wakeAt(partition, at) {
      if (running) wakeTimes.add(partition, at);
    },
    start() {
      if (running) return;
      running = true;
      quiet.fill(false);
      quietAnswers.fill(false);
      unsubscribe = store.onReady((queue, partition) => {
        if (queue !== options.queue) return;
        if (partition >= 0 && partition < store.partitions) {
          announced[partition] = (announced[partition] ?? 0) + 1;
          quiet[partition] = false;
          quietAnswers[partition] = false;
        }
        wake.notify();
        if (answerLanes > 0) answerWake.notify();
      });
      sweep.start();
      // The last `answerLanes` lanes are the answer lanes.
      lanes = Array.from({ length: options.concurrency }, (_, i) =>
        lane(
          Math.floor((i * store.partitions) / options.concurrency),
          i >= options.concurrency - answerLanes,
        ),
      );
    },
    async stop() {
      running = false;
      unsubscribe();
      sweep.stop();
      wakeTimes.clear();
      wake.notifyAll();
      answerWake.notifyAll();
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
