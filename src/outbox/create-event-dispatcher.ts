import type {
  DeliveryAttempt,
  EventSubscription,
  OutboundEvent,
} from '../events/outbound-event.ts';
import { receiverName, subscriptionKey } from '../events/subscription-key.ts';
import { subscriptionWants } from '../events/subscription-wants.ts';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { Clock } from '../scheduler/clock.ts';
import type { EventOutcome, QueuedEvent } from '../store/event-outbox.ts';
import type { Store } from '../store/store.ts';
import { storeOutage } from '../store/store-outage.ts';
import { eventRetryAt } from './event-retry-at.ts';

export interface EventDispatcherOptions {
  store: Pick<Store, 'partitions' | 'claimDueEvents' | 'settleEvent' | 'onEventsQueued'>;
  /** A location's subscriptions (the config's `events`). */
  subscriptions: (location: string) => readonly EventSubscription[];
  /** One delivery attempt (`postEvent` from `app/`, with its time-out). Never throws. */
  post: (subscription: EventSubscription, event: OutboundEvent) => Promise<DeliveryAttempt>;
  clock: Clock;
  logger: Logger;
  metrics?: Pick<Metrics, 'outboundWebhook'>;
  /**
   * How long an event is retried for a subscription, from when it was queued, before that
   * subscription is given up (24 h): one for all, or per subscription (its `retryFor`).
   */
  retryForMs?: number | ((subscription: EventSubscription) => number | undefined);
  /** The first retry's ceiling (1 s), doubling per attempt up to `maxBackoffMs` (1 h). */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  /** Events in delivery at once (8). */
  concurrency?: number;
  /** The pause between two partitions' claims when nothing was due (250 ms). */
  pollMs?: number;
  /** How long a claimed event is hidden from other dispatchers (60 s: longer than a round). */
  leaseMs?: number;
  random?: () => number;
}

/** The retry window when none is given: a day. */
export const defaultRetryForMs = 86_400_000;

/** One round's answers, by subscription key, and every subscription of the location by key. */
interface Round {
  answers: Array<{ key: string; subscription: EventSubscription; attempt: DeliveryAttempt }>;
  known: Map<string, EventSubscription>;
}

const errorOf = (attempt: DeliveryAttempt) => attempt.error ?? `http_${attempt.status}`;

export interface EventDispatcher {
  start(): void;
  /** Stops claiming and waits for the rounds in flight. */
  stop(): Promise<void>;
  /**
   * A commit of this process queued events of `partition`: that partition is claimed next, at
   * once, rather than when its turn comes round (up to 16 × `pollMs`, 4 s, later).
   */
  queued(partition: number): void;
}

/**
 * Delivers the outbound events the steps queued (issue 24), off the conversation's path: no
 * step and no SMS waits for it. It claims due events from one partition at a time, in turn
 * (pausing `pollMs` after a partition with nothing due, so an idle process costs 4 store calls
 * a second), and first any partition it was told had events queued: by a commit of this
 * process (`queued`), or by the store (`onEventsQueued`: an operator's opt-out, another
 * process's step, a replay), so that an event goes out as soon as it is queued. It posts each
 * to every subscription of its location that wants its type, at most `concurrency` events at
 * once. Delivery is per subscription: the event keeps which subscriptions took it (2xx) and
 * which were given up, and each round posts to the others alone. One that fails in a way retrying can help is tried again with exponential backoff and
 * full jitter until its `retryForMs` after the event was queued; one that fails for good (a
 * refused address, a 4xx) or runs out of time is given up at once, and the others go on. When
 * none is left to try, the event is settled: delivered when every one took it, else a dead
 * letter naming those given up, which a replay sends to them alone. At least once: a
 * subscription whose answer was lost (a time-out, a process killed) gets it again, same id.
 */
export function createEventDispatcher(options: EventDispatcherOptions): EventDispatcher {
  const { store, clock, logger } = options;
  const concurrency = options.concurrency ?? 8;
  const pollMs = options.pollMs ?? 250;
  const leaseMs = options.leaseMs ?? 60_000;
  const outage = storeOutage(store);
  const inFlight = new Set<Promise<void>>();
  let running = false;
  let loop: Promise<void> | undefined;
  let wake: (() => void) | undefined;

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => done(), ms);
      const done = () => {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      };
      wake = done;
    });

  /** Partitions a commit of this process queued events in, claimed before the turn's. */
  const told = new Set<number>();
  let stopHearing = () => {};

  function tell(partition: number): void {
    if (!running) return;
    told.add(partition);
    wake?.();
  }

  async function run(): Promise<void> {
    let partition = 0;
    while (running) {
      if (inFlight.size >= concurrency) {
        await Promise.race(inFlight);
        continue;
      }
      const first = told.values().next();
      const asked = first.done ? partition : first.value;
      told.delete(asked);
      const limit = concurrency - inFlight.size;
      let claimed: QueuedEvent[] = [];
      try {
        claimed = await store.claimDueEvents(asked, clock.now(), leaseMs, limit);
        outage.answered(logger);
      } catch (error) {
        // Logged once per outage (`storeOutage`), not at every poll.
        outage.failed(logger, error, 'could not claim outbound events; trying again', {
          partition: asked,
        });
        // A partition told of stays told: its events are claimed once the store answers.
        if (asked !== partition) told.add(asked);
        await pause(1_000);
      }
      for (const queued of claimed) {
        const round = deliver(queued).finally(() => inFlight.delete(round));
        inFlight.add(round);
      }
      if (asked !== partition) {
        // A partition told of: asked again while it fills a whole claim, then the turn goes on.
        if (claimed.length === limit) told.add(asked);
      } else if (claimed.length === 0) {
        // A partition with work is asked again at once; an empty one passes the turn.
        partition = (partition + 1) % store.partitions;
        if (told.size === 0) await pause(pollMs);
      }
    }
  }

  async function deliver(queued: QueuedEvent): Promise<void> {
    const { event, partition } = queued;
    const started = performance.now();
    const round = await postToPending(queued);
    const outcome = outcomeOf(queued, round);
    const result =
      'delivered' in outcome ? 'delivered' : 'retryAt' in outcome ? 'retry' : 'dead_letter';
    options.metrics?.outboundWebhook(result, performance.now() - started);
    const log = logger.child({
      location: event.data.location,
      bot: event.data.bot,
      conversation: event.data.maskedPhone,
    });
    if (result !== 'delivered') {
      log[result === 'retry' ? 'info' : 'warn'](
        { eventId: event.id, type: event.type, attempts: queued.attempts + 1, outcome },
        result === 'retry'
          ? 'outbound event not delivered; will retry'
          : 'outbound event dead-lettered',
      );
    }
    try {
      await store.settleEvent(partition, event.id, outcome, clock.now());
    } catch (error) {
      log.warn(
        { err: error, eventId: event.id },
        'could not settle an outbound event; its lease will expire',
      );
    }
  }

  /**
   * Posts the event to each subscription of its location that wants its type and has neither
   * taken it nor been given up for it: a subscription that took it in an earlier round (or
   * before a dead letter's replay) does not get it again because another failed.
   */
  async function postToPending(queued: QueuedEvent): Promise<Round> {
    const { event } = queued;
    const took = new Set(queued.deliveredTo ?? []);
    const known = new Map<string, EventSubscription>();
    const pending = new Map<string, EventSubscription>();
    for (const subscription of options.subscriptions(event.data.location)) {
      const key = subscriptionKey(subscription);
      if (!known.has(key)) known.set(key, subscription);
      if (!subscriptionWants(subscription, event.type)) continue;
      // One delivery per receiver, though two subscriptions name the same URL.
      if (took.has(key) || queued.gaveUpOn?.[key] !== undefined || pending.has(key)) continue;
      pending.set(key, subscription);
    }
    const answers = await Promise.all(
      [...pending].map(async ([key, subscription]) => ({
        key,
        subscription,
        attempt: await options.post(subscription, event),
      })),
    );
    return { answers, known };
  }

  function outcomeOf(queued: QueuedEvent, { answers, known }: Round): EventOutcome {
    const name = (key: string) => {
      const subscription = known.get(key);
      return subscription ? receiverName(subscription) : `subscription ${key}`;
    };
    const deliveredTo = answers.filter((a) => a.attempt.ok).map((a) => a.key);
    const gaveUpOn: Record<string, string> = {};
    const failures = answers.filter((a) => !a.attempt.ok);
    for (const { key, attempt } of failures) {
      if (!attempt.retryable) gaveUpOn[key] = errorOf(attempt);
    }
    let retrying = failures.filter((a) => a.attempt.retryable);
    const now = clock.now();
    const retryAt =
      retrying.length === 0
        ? now
        : eventRetryAt({
            attempts: queued.attempts,
            now,
            baseMs: options.baseBackoffMs ?? 1_000,
            maxMs: options.maxBackoffMs ?? 3_600_000,
            retryAfterMs: Math.max(0, ...retrying.map((a) => a.attempt.retryAfterMs ?? 0)),
            random: options.random ?? Math.random,
          });
    // Each subscription's own retry window, from when the event was queued (or replayed).
    for (const { key, subscription, attempt } of retrying) {
      if (retryAt > queued.queuedAt + windowOf(subscription)) {
        gaveUpOn[key] = `retries_exhausted:${errorOf(attempt)}`;
      }
    }
    retrying = retrying.filter((a) => gaveUpOn[a.key] === undefined);
    const progress = {
      ...(deliveredTo.length > 0 && { deliveredTo }),
      ...(Object.keys(gaveUpOn).length > 0 && { gaveUpOn }),
    };
    const given = { ...queued.gaveUpOn, ...gaveUpOn };
    if (retrying.length > 0) {
      const error = failures.map((a) => `${errorOf(a.attempt)} from ${name(a.key)}`).join(', ');
      return { retryAt, error, ...progress };
    }
    if (Object.keys(given).length === 0) return { delivered: true };
    const reason = Object.entries(given)
      .map(([key, error]) => `${error} from ${name(key)}`)
      .join(', ');
    return { deadLetter: reason, ...progress };
  }

  function windowOf(subscription: EventSubscription): number {
    const window = options.retryForMs;
    return (typeof window === 'function' ? window(subscription) : window) ?? defaultRetryForMs;
  }

  return {
    start() {
      if (running) return;
      running = true;
      // Events queued by any process sharing the store (a worker's step, an operator's opt-out
      // through another process's admin API): their partition is claimed at once.
      stopHearing = store.onEventsQueued((partition) => tell(partition));
      loop = run().catch((error: unknown) => {
        logger.error({ err: error }, 'the outbound event dispatcher stopped');
      });
    },
    async stop() {
      running = false;
      stopHearing();
      wake?.();
      await loop;
      await Promise.allSettled([...inFlight]);
    },
    queued: tell,
  };
}
