import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { OutboundEvent } from '../../../src/events/outbound-event.ts';
import { signWebhook } from '../../../src/events/sign-webhook.ts';
import { verifyWebhook } from '../../../src/events/verify-webhook.ts';
import { WebhookVerificationError } from '../../../src/events/webhook-verification-error.ts';

// Written from the Standard Webhooks text, with node:crypto only: the signed content is
// `${msg_id}.${timestamp}.${payload}`, the key is the base64-decoded part of the secret after
// `whsec_`, the signature HMAC-SHA256 in base64, the header a space-delimited list of
// `v1,<signature>`, and a timestamp more than 5 minutes away is refused.
const spec = {
  sign(secret: string, msgId: string, timestamp: number, payload: string): string {
    const key = Buffer.from(secret.split('_')[1] ?? '', 'base64');
    const content = `${msgId}.${timestamp}.${payload}`;
    return `v1,${createHmac('sha256', key).update(content).digest('base64')}`;
  },
  verify(secret: string, headers: Record<string, string>, payload: string, nowSec: number) {
    const timestamp = Number(headers['webhook-timestamp']);
    if (Math.abs(nowSec - timestamp) > 5 * 60) return false;
    const expected = spec.sign(secret, headers['webhook-id'] ?? '', timestamp, payload);
    return (headers['webhook-signature'] ?? '').split(' ').some((passed) => {
      const [version, signature] = passed.split(',');
      const a = Buffer.from(signature ?? '', 'base64');
      const b = Buffer.from(expected.split(',')[1] ?? '', 'base64');
      return version === 'v1' && a.length === b.length && timingSafeEqual(a, b);
    });
  },
};

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const otherSecret = `whsec_${randomBytes(32).toString('base64')}`;
const nowMs = Date.parse('2026-03-05T10:00:00Z');
const nowSec = nowMs / 1000;
const event: OutboundEvent = {
  id: 'evt_1700000000000-0_0',
  type: 'conversation.ended',
  timestamp: '2026-03-05T10:00:00.000Z',
  data: {
    location: 'paris',
    bot: 'appointment',
    botVersion: 'abc123',
    runId: 'run_1',
    phone: '33612345678',
    maskedPhone: '336•••••678',
    payload: { endCode: 'confirmed' },
  },
};
const body = JSON.stringify(event);
const now = () => nowMs;

function specHeaders(at = nowSec, key = secret, payload = body): Record<string, string> {
  return {
    'webhook-id': event.id,
    'webhook-timestamp': String(at),
    'webhook-signature': spec.sign(key, event.id, at, payload),
  };
}

function refusal(run: () => unknown): WebhookVerificationError {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error;
    throw error;
  }
  throw new Error('verifyWebhook accepted it');
}

describe('verifyWebhook', () => {
  it('accepts a delivery signed by an independent implementation of the spec, and gives the event', () => {
    expect(verifyWebhook(secret, specHeaders(), body, { now })).toEqual(event);
  });

  it('takes a Buffer body, headers in any case, and Fetch Headers', () => {
    const upper = Object.fromEntries(
      Object.entries(specHeaders()).map(([name, value]) => [name.toUpperCase(), value]),
    );
    expect(verifyWebhook(secret, upper, Buffer.from(body), { now }).id).toBe(event.id);
    expect(verifyWebhook(secret, new Headers(specHeaders()), body, { now }).id).toBe(event.id);
  });

  it('accepts any of several v1 signatures (key rotation)', () => {
    const headers = specHeaders();
    headers['webhook-signature'] =
      `${spec.sign(otherSecret, event.id, nowSec, body)} v1a,xyz ${headers['webhook-signature']}`;
    expect(verifyWebhook(secret, headers, body, { now }).id).toBe(event.id);
  });

  it('refuses a tampered body', () => {
    const tampered = body.replace('confirmed', 'cancelled');
    expect(refusal(() => verifyWebhook(secret, specHeaders(), tampered, { now })).reason).toBe(
      'bad_signature',
    );
  });

  it('refuses a signature made with another secret', () => {
    const error = refusal(() => verifyWebhook(otherSecret, specHeaders(), body, { now }));
    expect(error.message).toMatch(/webhook-signature does not match/);
  });

  it('refuses a timestamp more than 5 minutes old, and one more than 5 minutes ahead', () => {
    const old = refusal(() => verifyWebhook(secret, specHeaders(nowSec - 301), body, { now }));
    expect(old.reason).toBe('timestamp_too_old');
    expect(old.message).toMatch(/too old/);
    const ahead = refusal(() => verifyWebhook(secret, specHeaders(nowSec + 301), body, { now }));
    expect(ahead.reason).toBe('timestamp_too_new');
    expect(verifyWebhook(secret, specHeaders(nowSec - 299), body, { now }).id).toBe(event.id);
  });

  it('refuses a delivery with a header missing, naming it', () => {
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const headers = specHeaders();
      delete headers[name];
      const error = refusal(() => verifyWebhook(secret, headers, body, { now }));
      expect(error.message).toBe(`missing header ${name}`);
      expect(error.reason).toBe('missing_header');
    }
  });
});

describe('signWebhook', () => {
  it('signs as the spec says: the independent verification accepts it', () => {
    const headers = signWebhook(secret, event.id, nowSec, body);
    expect(headers['webhook-id']).toBe(event.id);
    expect(headers['webhook-timestamp']).toBe(String(nowSec));
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(spec.verify(secret, { ...headers }, body, nowSec)).toBe(true);
    expect(spec.verify(otherSecret, { ...headers }, body, nowSec)).toBe(false);
    expect(spec.verify(secret, { ...headers }, `${body} `, nowSec)).toBe(false);
  });
});
