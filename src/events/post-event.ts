import type { LookupFunction } from 'node:net';
import { request } from 'undici';
import { BlockedAddressError } from '../provider/address-guard.ts';
import { parseRetryAfter } from '../provider/parse-retry-after.ts';
import { eventAgent } from './event-agent.ts';
import type { DeliveryAttempt, EventSubscription, OutboundEvent } from './outbound-event.ts';
import { signWebhook } from './sign-webhook.ts';

export interface PostEventOptions {
  /** How long the receiver has to answer, headers and body (default 10 s). */
  timeoutMs?: number;
  /** The current time in ms, for the signature's timestamp and Retry-After dates. */
  now?: () => number;
  /** Deliver to private addresses too, whatever the subscription says (`replyflow dev`). */
  allowPrivate?: boolean;
  /** Resolves the receiver's name at connection time (the system resolver by default). */
  lookup?: LookupFunction;
}

const timedOut = Symbol('event delivery timed out');
const retryableStatuses = new Set([408, 409, 425, 429]);

/**
 * One delivery attempt of `event` to `subscription`: a signed JSON POST, no redirect followed.
 * Never throws: what happened is the `DeliveryAttempt` (2xx ok; 408/409/425/429/5xx, a
 * time-out or a connection failure retryable; a refused address or another status not).
 * Errors are codes, never the receiver's text, so no phone number reaches a log through them.
 */
export async function postEvent(
  subscription: EventSubscription,
  event: OutboundEvent,
  options: PostEventOptions = {},
): Promise<DeliveryAttempt> {
  const now = options.now ?? Date.now;
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  const body = JSON.stringify(event);
  const signed = signWebhook(subscription.secret, event.id, Math.floor(now() / 1000), body);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(timedOut), options.timeoutMs ?? 10_000);
  try {
    const answer = await request(subscription.url, {
      method: 'POST',
      headers: { ...signed, 'content-type': 'application/json', 'user-agent': 'replyflow' },
      body,
      signal: controller.signal,
      dispatcher: eventAgent(
        Boolean(subscription.allowPrivateAddresses || options.allowPrivate),
        options.lookup,
      ),
    });
    await answer.body.dump();
    const status = answer.statusCode;
    if (status >= 200 && status < 300)
      return { ok: true, status, retryable: false, durationMs: took() };
    const retryable = status >= 500 || retryableStatuses.has(status);
    const retryAfterMs = retryable
      ? parseRetryAfter(answer.headers['retry-after'], now())
      : undefined;
    return {
      ok: false,
      status,
      error: `http_${status}`,
      retryable,
      ...(retryAfterMs !== undefined && { retryAfterMs }),
      durationMs: took(),
    };
  } catch (error) {
    if (controller.signal.reason === timedOut) {
      return { ok: false, error: 'timeout', retryable: true, durationMs: took() };
    }
    if (isBlocked(error)) {
      return { ok: false, error: 'refused_private_address', retryable: false, durationMs: took() };
    }
    return { ok: false, error: 'connect_error', retryable: true, durationMs: took() };
  } finally {
    clearTimeout(timer);
  }
}

function isBlocked(error: unknown): boolean {
  for (let e = error; e instanceof Error; e = e.cause) {
    if (e instanceof BlockedAddressError) return true;
  }
  return false;
}
