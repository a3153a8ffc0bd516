import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import echo from '../../fixtures/bots/echo-bot.ts';
import {
  connectRedis,
  location,
  type ReplyLoop,
  startReplyLoop,
} from '../../support/reply-loop.ts';

/** A notification's JSON text with its id and body written as given: JSON escapes stay escapes. */
function envelopeText(rawId: string, phone: string, rawBody = 'ECHO hi'): string {
  const item = `{"originSms":{"id":"sms-origin","status":"received"},"body":"${rawBody}","from":"${phone}","to":"38200"}`;
  return `{"id":"${rawId}","webhookId":"wh-1","type":"sms.status","data":[${item}]}`;
}

/** `{"a":{"a":…}}` nested `depth` levels, as text (JSON.stringify would recurse). */
function nested(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

describe('the webhook checks what it stores first: bad input gets 400 and a dead letter, never 503', () => {
  let loop: ReplyLoop;
  beforeAll(async () => {
    loop = await startReplyLoop({ registry: createBotRegistry([{ bot: echo, file: 'echo.ts' }]) });
  });
  afterAll(() => loop.close());

  it('refuses an envelope id with a lone surrogate with 400 on every delivery, and keeps it', async () => {
    const text = envelopeText('z\\ud800', '33612341001');
    for (let attempt = 0; attempt < 3; attempt++) expect(await loop.notify(text)).toBe(400);
    const [letter] = await loop.store.listDeadLetters(1);
    expect(letter?.reason).toMatch(/id: must be well-formed text/);
    const ready = await fetch(`${loop.app.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await loop.store.pendingEvents({ location, phone: '33612341001' })).toEqual([]);
  });

  it('takes a reply whose text has a lone surrogate, repaired, instead of failing its conversation', async () => {
    const phone = '33612341002';
    expect(await loop.notify(envelopeText('surrogate-text', phone, 'ECHO a\\udc00b'))).toBe(200);
    const bodies = await loop.waitForBodies(phone, 2);
    expect(bodies[1]).toBe('#1: ECHO a\uFFFDb');
  });

  it('refuses a body nested deeper than 32 levels with 400 and a dead letter', async () => {
    for (const depth of [1_001, 5_000]) {
      const text = `{"id":"deep-${depth}","webhookId":"w","type":"sms.status","data":[${nested(depth)}]}`;
      expect(await loop.notify(text)).toBe(400);
      const [letter] = await loop.store.listDeadLetters(1);
      expect(letter?.reason).toMatch(/nested deeper than 32 levels/);
    }
  });

  it('keeps dead letters with their phone numbers masked, for the retention only', async () => {
    // A status the webhook cannot use (an unknown status) about a real number.
    const text = JSON.stringify({
      id: 'masked-1',
      webhookId: 'w',
      type: 'sms.status',
      data: [{ id: 'sms-1', to: '33612349876', status: 'weird', body: 'hello' }],
    });
    expect(await loop.notify(text)).toBe(400);
    const [letter] = await loop.store.listDeadLetters(1);
    expect(letter?.body).toContain('masked-1');
    expect(letter?.body).not.toContain('33612349876');
    expect(letter?.body).toContain('336•••••876');
    const redis = connectRedis(loop.redis!);
    try {
      const ttl = await redis.pttl(`${loop.redis!.prefix}dead-letters`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(30 * 24 * 3_600_000);
    } finally {
      redis.disconnect();
    }
  });

  it('keeps no full number in a dead letter when the number is written in groups', async () => {
    const written = [
      { from: '06 12 34 56 78', digits: '0612345678', masked: '061••••678' },
      { from: '+1 (201) 555-0123', digits: '12015550123', masked: '+120•••••123' },
      { from: '+33 6 12 34 56 77', digits: '33612345677', masked: '+336•••••677' },
    ];
    for (const { from, digits, masked } of written) {
      // Dead-lettered for its id, and a body cut short: both keep the start of the body.
      expect(await loop.notify(envelopeText(`grouped-${digits}\\ud800`, from))).toBe(400);
      expect(await loop.notify(`{"id":"cut-${digits.slice(-3)}","from":"${from}","to":`)).toBe(400);
      for (const letter of await loop.store.listDeadLetters(2)) {
        const kept = `${letter.reason} ${letter.body}`;
        expect(kept).not.toContain(from);
        expect(kept.replace(/[ ().+-]/g, '')).not.toContain(digits);
        expect(letter.body).toContain(`"from":"${masked}"`);
      }
    }
  });
});
