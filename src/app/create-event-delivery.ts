import { parseDuration } from '../bot/parse-duration.ts';
import { privateDestinationProblem } from '../events/event-subscription-schema.ts';
import type { EventSubscription } from '../events/outbound-event.ts';
import { postEvent } from '../events/post-event.ts';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import {
  createEventDispatcher,
  type EventDispatcher,
  type EventDispatcherOptions,
} from '../outbox/create-event-dispatcher.ts';
import type { Clock } from '../scheduler/clock.ts';
import type { Store } from '../store/store.ts';
import type { LocationConfig } from './config.ts';

/** How long a receiver has to answer one delivery attempt. */
const postTimeoutMs = 10_000;

/**
 * The outbound events' part of a process (issue 24): which locations have subscriptions (their
 * steps queue events in their commits; the others' write nothing more), and, for a process
 * with the sender role, the dispatcher that delivers them, when any location has one.
 */
export function createEventDelivery(options: {
  locations: readonly LocationConfig[];
  store: Store;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  sender: boolean;
  /** REPLYFLOW_LEASE: how long a claimed event is hidden (longer than a round's 10 s). */
  leaseMs: number;
  overrides?: Partial<EventDispatcherOptions>;
}): { hasSubscriptions?: (location: string) => boolean; dispatcher?: EventDispatcher } {
  const subscriptions = new Map<string, EventSubscription[]>();
  for (const location of options.locations) {
    if (location.events?.length) subscriptions.set(location.name, location.events);
    // http://localhost passes the check at start, and every delivery to it would be refused.
    for (const subscription of location.events ?? []) {
      const problem = privateDestinationProblem(subscription);
      if (problem) options.logger.warn({ location: location.name }, problem);
    }
  }
  if (subscriptions.size === 0) return {};
  const dispatcher = options.sender
    ? createEventDispatcher({
        store: options.store,
        subscriptions: (location) => subscriptions.get(location) ?? [],
        post: (subscription, event) => postEvent(subscription, event, { timeoutMs: postTimeoutMs }),
        clock: options.clock,
        logger: options.logger.child({ role: 'events' }),
        metrics: options.metrics,
        leaseMs: Math.max(options.leaseMs, postTimeoutMs + 5_000),
        // Each subscription's `retryFor` (REPLYFLOW_EVENTS_RETRY_FOR when it has none), else 24 h.
        retryForMs: (subscription) =>
          subscription.retryFor === undefined ? undefined : parseDuration(subscription.retryFor),
        ...options.overrides,
      })
    : undefined;
  return { hasSubscriptions: (location) => subscriptions.has(location), dispatcher };
}
