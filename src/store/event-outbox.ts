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
}

/** What a delivery round came to: every subscription took it, try again later, or give up. */
export type EventOutcome =
  | { delivered: true }
  | { retryAt: number; error?: string }
  | { deadLetter: string };

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
  /** Queues a dead letter again, due now with its id, attempts and window from zero. */
  replayEvent(id: string, now: number): Promise<boolean>;
}

/** The listing's copy of an event: the full number is for its receiver only. */
export function maskedEvent(event: OutboundEvent): OutboundEvent {
  return { ...event, data: { ...event.data, phone: event.data.maskedPhone } };
}
