import { createHmac } from 'node:crypto';
import { eventSecretKey } from './event-secret.ts';

/** The three headers of a signed delivery (Standard Webhooks). */
export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** The base64 HMAC-SHA256 of `<id>.<timestamp>.<body>`, keyed by the decoded secret. */
export function webhookSignature(
  secret: string,
  id: string,
  timestampSec: number,
  body: string | Buffer,
): string {
  return createHmac('sha256', eventSecretKey(secret))
    .update(`${id}.${timestampSec}.`)
    .update(body)
    .digest('base64');
}

/**
 * Signs a delivery as the Standard Webhooks specification says: `webhook-signature` is
 * `v1,<signature>`. The body must be sent byte for byte as signed.
 *
 * @example
 * const body = JSON.stringify(event);
 * const headers = signWebhook(secret, event.id, Math.floor(Date.now() / 1000), body);
 */
export function signWebhook(
  secret: string,
  id: string,
  timestampSec: number,
  body: string | Buffer,
): WebhookHeaders {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSec),
    'webhook-signature': `v1,${webhookSignature(secret, id, timestampSec, body)}`,
  };
}
