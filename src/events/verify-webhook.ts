import { timingSafeEqual } from 'node:crypto';
import type { OutboundEvent } from './outbound-event.ts';
import { webhookSignature } from './sign-webhook.ts';
import { WebhookVerificationError } from './webhook-verification-error.ts';

/** Headers as Express (`req.headers`), Node or Fetch (`Headers`) give them. */
export type WebhookRequestHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** How far the timestamp may be from now, either way, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The current time in ms (default `Date.now`). */
  now?: () => number;
}

/**
 * Checks a delivery's Standard Webhooks signature and timestamp, and gives its parsed body.
 * Throws `WebhookVerificationError` when a header is missing, the timestamp is more than
 * `toleranceSeconds` away, or no `v1,` signature matches (several are accepted: key rotation).
 * Pass the raw body, as received: a re-serialised object does not verify.
 *
 * @example
 * app.post('/replyflow', express.raw({ type: 'application/json' }), (req, res) => {
 *   const event = verifyWebhook(process.env.REPLYFLOW_SECRET!, req.headers, req.body);
 *   res.sendStatus(204);
 * });
 */
export function verifyWebhook(
  secret: string,
  headers: WebhookRequestHeaders,
  body: string | Buffer,
  options: VerifyWebhookOptions = {},
): OutboundEvent {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  checkTimestamp(timestamp, options);
  const expected = Buffer.from(webhookSignature(secret, id, Number(timestamp), body), 'base64');
  const matches = signatures
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .some((entry) => sameBytes(Buffer.from(entry.slice(3), 'base64'), expected));
  if (!matches) {
    throw new WebhookVerificationError(
      'bad_signature',
      'webhook-signature does not match: check the subscription secret, and pass the raw body as received',
    );
  }
  try {
    return JSON.parse(Buffer.isBuffer(body) ? body.toString('utf8') : body) as OutboundEvent;
  } catch (cause) {
    throw new WebhookVerificationError('bad_payload', 'the signed body is not JSON', { cause });
  }
}

function header(headers: WebhookRequestHeaders, name: string): string {
  const value =
    typeof (headers as Headers).get === 'function'
      ? (headers as Headers).get(name)
      : lookupIgnoringCase(headers as Record<string, string | string[] | undefined>, name);
  if (!value) {
    throw new WebhookVerificationError('missing_header', `missing header ${name}`);
  }
  return value;
}

function lookupIgnoringCase(
  headers: Record<string, string | string[] | undefined>,
  name: string,
): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(' ') : value;
  }
  return undefined;
}

function checkTimestamp(timestamp: string, options: VerifyWebhookOptions): void {
  if (!/^\d+$/.test(timestamp)) {
    throw new WebhookVerificationError('bad_timestamp', 'webhook-timestamp must be unix seconds');
  }
  const tolerance = options.toleranceSeconds ?? 300;
  const nowSec = Math.floor((options.now ?? Date.now)() / 1000);
  const age = nowSec - Number(timestamp);
  if (age > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_too_old',
      `webhook-timestamp is too old (${age} s ago, more than ${tolerance} s): a replay, or a clock off`,
    );
  }
  if (-age > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_too_new',
      `webhook-timestamp is too new (${-age} s ahead, more than ${tolerance} s): a clock off`,
    );
  }
}

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
