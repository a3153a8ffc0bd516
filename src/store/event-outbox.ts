import type { OutboundEvent } from '../events/outbound-event.ts';

/**
 * An outbound event in its partition's event outbox (issue 24): queued by the step's commit
 * (`StepCommit.events`), claimed by the dispatcher with a lease, settled once its subscriptions
 * answered. `attempts` counts the delivery rounds that failed.
 */
export interface QueuedEvent {
  partition: number;
  event: OutboundEvent;
  attempts: number;
  /** When it was first queued (or replayed), ms: the retry window counts from it. */
  queuedAt: number;
  /** When it may be claimed next (ms); absent for a dead letter. */
  dueAt?: number;
  /** Why the last round failed (`http_500`, `timeout`…). */
  lastError?: string;
  /** Set for a dead letter: when it became one (ms) and why. */
  deadAt?: number;
  reason?: string;
  /**
   * The subscriptions (`subscriptionKey`) that took it: a retry or a replay goes to the others
   * alone. Absent when none did yet.
   */
  deliveredTo?: string[];
  /**
   * The subscriptions given up for it (a 4xx, a refused address), each with its error: the
   * retries go on to the others; a replay tries them again. Absent when none.
   */
  gaveUpOn?: Record<string, string>;
}

/** Of a retry or a dead letter: the subscriptions this round delivered to, and those it gave up. */
export interface SubscriptionProgress {
  deliveredTo?: string[];
  gaveUpOn?: Record<string, string>;
}

/**
 * What a delivery round came to: every subscription took it, try again later, or give up. A
 * retry or a dead letter adds the round's `SubscriptionProgress` to the event's.
 */
export type EventOutcome =
  | { delivered: true }
  | ({ retryAt: number; error?: string } & SubscriptionProgress)
  | ({ deadLetter: string } & SubscriptionProgress);

/**
 * The event outbox: per partition a queue of events due at a time (the lease is a later due
 * time, as the message outbox's ready time is), and the dead letters, kept for the retention.
 */
export interface EventOutbox {
  /**
   * Takes up to `max` events of `partition` due by `now`, soonest first, and moves their due
   * time to `now + leaseMs`: a claimer that dies leaves them to the next claim after the lease.
   */
  claimDueEvents(
    partition: number,
    now: number,
    leaseMs: number,
    max: number,
  ): Promise<QueuedEvent[]>;
  /**
   * Settles a claimed event: `delivered` deletes it; `retryAt` makes it due then, one attempt
   * more; `deadLetter` moves it to the dead letters (capped, kept for the retention). Answers
   * false when the event is no longer queued (settled by another claimer).
   */
  settleEvent(partition: number, id: string, outcome: EventOutcome, now: number): Promise<boolean>;
  /**
   * The queued events, soonest due first, or with `failed` the dead letters, newest first;
   * phone numbers masked (`data.phone` is the masked one).
   */
  listEvents(query: { failed?: boolean; limit: number }): Promise<QueuedEvent[]>;
  /**
   * Queues a dead letter again, due now with its id, attempts and window from zero. The
   * subscriptions that took it keep it (`deliveredTo`); those given up are tried again.
   */
  replayEvent(id: string, now: number): Promise<boolean>;
  /**
   * Calls `listener` when a call queued events of `partition` (a step's, an operator's opt-out
   * or opt-in, a replay), on Redis from any process sharing the store: a hint for dispatchers,
   * so that an event queued by a process without one is posted at once rather than when the
   * dispatcher's poll comes round to its partition. Returns an unsubscribe.
   */
  onEventsQueued(listener: (partition: number) => void): () => void;
}

/** The listing's copy of an event: the full number is for its receiver only. */
export function maskedEvent(event: OutboundEvent): OutboundEvent {
  return { ...event, data: { ...event.data, phone: event.data.maskedPhone } };
}

/** `deliveredTo` and `gaveUpOn` as the stored words: keys, and `key=error` (spaces in an error made `_`). */
export function progressWords(progress: SubscriptionProgress): [delivered: string, gaveUp: string] {
  const gaveUp = Object.entries(progress.gaveUpOn ?? {}).map(
    ([key, error]) => `${key}=${error.replace(/\s+/g, '_')}`,
  );
  return [(progress.deliveredTo ?? []).join(' '), gaveUp.join(' ')];
}

/** The stored words back as `deliveredTo` and `gaveUpOn`, each absent when empty. */
export function progressOf(delivered: string, gaveUp: string): SubscriptionProgress {
  const keys = delivered.split(' ').filter(Boolean);
  const given = gaveUp
    .split(' ')
    .filter(Boolean)
    .map((word) => {
      const at = word.indexOf('=');
      return at < 0 ? [word, ''] : [word.slice(0, at), word.slice(at + 1)];
    });
  return {
    ...(keys.length > 0 && { deliveredTo: keys }),
    ...(given.length > 0 && { gaveUpOn: Object.fromEntries(given) }),
  };
}

/** `words` and then those of `more` not in it yet, as settle-event-4.lua's `withWords`. */
export function withWords(words: string, more: string): string {
  const list = words.split(' ').filter(Boolean);
  for (const word of more.split(' ').filter(Boolean)) if (!list.includes(word)) list.push(word);
  return list.join(' ');
}
