import type {
  DeliveryAttempt,
  EventSubscription,
  OutboundEvent,
} from '../events/outbound-event.ts';
import { subscriptionWants } from '../events/subscription-wants.ts';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { Clock } from '../scheduler/clock.ts';
import type { EventOutcome, QueuedEvent } from '../store/event-outbox.ts';
import type { Store } from '../store/store.ts';
import { storeOutage } from '../store/store-outage.ts';
import { eventRetryAt } from './event-retry-at.ts';

export interface EventDispatcherOptions {
  store: Pick<Store, 'partitions' | 'claimDueEvents' | 'settleEvent'>;
  /** A location's subscriptions (the config's `events`). */
  subscriptions: (location: string) => readonly EventSubscription[];
  /** One delivery attempt (`postEvent` from `app/`, with its time-out). Never throws. */
  post: (subscription: EventSubscription, event: OutboundEvent) => Promise<DeliveryAttempt>;
  clock: Clock;
  logger: Logger;
  metrics?: Pick<Metrics, 'outboundWebhook'>;
  /** How long an event is retried, from when it was queued, before it is a dead letter (24 h). */
  retryForMs?: number;
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

export interface EventDispatcher {
  start(): void;
  /** Stops claiming and waits for the rounds in flight. */
  stop(): Promise<void>;
}

/**
 * Delivers the outbound events the steps queued (issue 24), off the conversation's path: no
 * step and no SMS waits for it. It claims due events from one partition at a time, in turn
 * (pausing `pollMs` after a partition with nothing due, so an idle process costs 4 store calls
 * a second), and posts each to every subscription of its location that wants its type, at
 * most `concurrency` events at once. An event every such subscription took (2xx) is settled
 * delivered; otherwise it is retried with exponential backoff and full jitter until
 * `retryForMs` after it was queued, then dead-lettered; a failure retrying cannot help (a
 * refused address, a 4xx) dead-letters it at once. At least once: a subscription that took it
 * gets it again, same id, when another failed.
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

  async function run(): Promise<void> {
    let partition = 0;
    while (running) {
      if (inFlight.size >= concurrency) {
        await Promise.race(inFlight);
        continue;
      }
      let claimed: QueuedEvent[] = [];
      try {
        claimed = await store.claimDueEvents(
          partition,
          clock.now(),
          leaseMs,
          concurrency - inFlight.size,
        );
        outage.answered(logger);
      } catch (error) {
        // Logged once per outage (`storeOutage`), not at every poll.
        outage.failed(logger, error, 'could not claim outbound events; trying again', {
          partition,
        });
        await pause(1_000);
      }
      for (const queued of claimed) {
        const round = deliver(queued).finally(() => inFlight.delete(round));
        inFlight.add(round);
      }
      // A partition with work is asked again at once; an empty one passes the turn.
      if (claimed.length === 0) {
        partition = (partition + 1) % store.partitions;
        await pause(pollMs);
      }
    }
  }

  async function deliver(queued: QueuedEvent): Promise<void> {
    const { event, partition } = queued;
    const started = performance.now();
    const wanting = options
      .subscriptions(event.data.location)
      .filter((subscription) => subscriptionWants(subscription, event.type));
    const attempts = await Promise.all(wanting.map((s) => options.post(s, event)));
    const failed = attempts.filter((attempt) => !attempt.ok);
    const outcome = outcomeOf(queued, failed);
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

  function outcomeOf(queued: QueuedEvent, failed: DeliveryAttempt[]): EventOutcome {
    if (failed.length === 0) return { delivered: true };
    const error = failed.map((attempt) => attempt.error ?? `http_${attempt.status}`).join(',');
    if (failed.some((attempt) => !attempt.retryable)) return { deadLetter: error };
    const now = clock.now();
    const retryAt = eventRetryAt({
      attempts: queued.attempts,
      now,
      baseMs: options.baseBackoffMs ?? 1_000,
      maxMs: options.maxBackoffMs ?? 3_600_000,
      retryAfterMs: Math.max(0, ...failed.map((attempt) => attempt.retryAfterMs ?? 0)),
      random: options.random ?? Math.random,
    });
    if (retryAt > queued.queuedAt + (options.retryForMs ?? 86_400_000)) {
      return { deadLetter: `retries_exhausted:${error}` };
    }
    return { retryAt, error };
  }

  return {
    start() {
      if (running) return;
      running = true;
      loop = run().catch((error: unknown) => {
        logger.error({ err: error }, 'the outbound event dispatcher stopped');
      });
    },
    async stop() {
      running = false;
      wake?.();
      await loop;
      await Promise.allSettled([...inFlight]);
    },
  };
}
