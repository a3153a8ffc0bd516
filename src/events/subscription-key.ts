import { createHash } from 'node:crypto';
import type { EventSubscription } from './outbound-event.ts';

/**
 * A subscription's name in the event outbox: the first 12 characters of the base64url SHA-256
 * of its URL. An event keeps the names of the subscriptions that took it (and of those given
 * up), so a retry or a replay goes to the others alone. The URL, not the secret: a rotated
 * secret is the same receiver. Opaque, so a URL's credentials never reach the store.
 */
export function subscriptionKey(subscription: Pick<EventSubscription, 'url'>): string {
  return createHash('sha256').update(subscription.url).digest('base64url').slice(0, 12);
}

/** The receiver as an operator reads it in a reason or a log line: the URL's host, no path or query. */
export function receiverName(subscription: Pick<EventSubscription, 'url'>): string {
  try {
    return new URL(subscription.url).host;
  } catch {
    return subscription.url;
  }
}
