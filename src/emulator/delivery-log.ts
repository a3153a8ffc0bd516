import type { WebhookEvent } from '../provider/schemas/webhook.ts';
import { CappedList } from './capped-list.ts';

/** How one delivery attempt ended. `injected_failure` is an attempt refused by a webhook fault. */
export type DeliveryOutcome =
  | 'ok'
  | 'http_error'
  | 'timeout'
  | 'network_error'
  | 'injected_failure';

/**
 * One attempt to deliver a notification to a webhook. After the last failed retry a final entry
 * with outcome `discarded` (attempt = number of attempts made, durationMs 0) marks the drop.
 */
export interface DeliveryLogEntry {
  notificationId: string;
  webhookId: string;
  url: string;
  /** The subscribed event kind that caused this notification. */
  event: WebhookEvent;
  /** 1 for the first attempt, 2 for the first retry, and so on. */
  attempt: number;
  /** ms since the epoch. */
  startedAt: number;
  durationMs: number;
  outcome: DeliveryOutcome | 'discarded';
  httpStatus?: number;
  /** Why a network error happened. */
  error?: string;
  /** The (scaled) delay before the next attempt, when one is scheduled. */
  retryInMs?: number;
}

export class DeliveryLog {
  readonly #entries = new CappedList<DeliveryLogEntry>(100_000);

  add(entry: DeliveryLogEntry): void {
    this.#entries.push(entry);
  }

  list(filter: { notificationId?: string | undefined } = {}): DeliveryLogEntry[] {
    return this.#entries
      .toArray()
      .filter(
        (e) => filter.notificationId === undefined || e.notificationId === filter.notificationId,
      )
      .map((entry) => ({ ...entry }));
  }

  clear(): void {
    this.#entries.clear();
  }
}
