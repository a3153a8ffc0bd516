import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import echo from '../../fixtures/bots/echo-bot.ts';
import {
  location,
  type ReplyLoop,
  replyNotification,
  startReplyLoop,
  webhookSecret,
} from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';

async function post(url: string, body: string, contentType = 'application/json') {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

function statusNotification(
  id: string,
  smsId: string,
  phone: string,
  status: string,
  statusReason = '',
) {
  return {
    id,
    webhookId: 'wh-1',
    type: 'sms.status',
    data: [
      {
        id: smsId,
        from: '',
        to: phone,
        body: 'x',
        shortenUrls: false,
        isTransactional: false,
        status,
        statusReason,
        price: 0.05,
        parts: 1,
        createdAt: '2026-11-21T09:00:00.000Z',
        updatedAt: '2026-11-21T09:00:01.000Z',
      },
    ],
  };
}

describe('POST /webhooks/:location/:secret', () => {
  let loop: ReplyLoop;
  beforeAll(async () => {
    loop = await startReplyLoop({ registry: createBotRegistry([{ bot: echo, file: 'echo.ts' }]) });
  });
  afterAll(() => loop.close());

  it('answers 404, the same way, for an unknown location or a wrong secret', async () => {
    const body = JSON.stringify(replyNotification('auth-1', '33612340001', 'ECHO'));
    const unknown = await post(`${loop.app.url}/webhooks/lyon/${webhookSecret}`, body);
    const wrong = await post(
      `${loop.app.url}/webhooks/${location}/${webhookSecret.slice(0, -1)}x`,
      body,
    );
    expect(unknown).toEqual(wrong);
    expect(unknown.status).toBe(404);
    expect(await loop.store.pendingEvents({ location, phone: '33612340001' })).toEqual([]);
  });

  it('takes bodies up to 256 kB and refuses larger ones with 413', async () => {
    const phone = '33612340002';
    const fits = replyNotification('size-1', phone, 'ECHO ' + 'x'.repeat(9_000));
    expect(
      (await post(loop.webhookUrl, JSON.stringify({ ...fits, pad: 'p'.repeat(250_000) }))).status,
    ).toBe(200);
    const tooBig = JSON.stringify({ ...fits, id: 'size-2', pad: 'p'.repeat(262_200) });
    expect((await post(loop.webhookUrl, tooBig)).status).toBe(413);
  });

  it('refuses a malformed body with 400 and keeps it, with its reason, as a dead letter', async () => {
    const answer = await post(loop.webhookUrl, JSON.stringify({ id: 'bad-1', data: 'not a list' }));
    expect(answer.status).toBe(400);
    expect(String(answer.body.message)).toMatch(/data/);
    const [letter] = await loop.store.listDeadLetters(1);
    expect(letter).toMatchObject({ location, reason: expect.stringMatching(/webhookId|data/) });
    expect(letter?.body).toContain('not a list');
  });

  it('ingests the good items of a notification and dead-letters the bad ones', async () => {
    const phone = '33612340003';
    const envelope = replyNotification('mixed-1', phone, 'ECHO mixed');
    envelope.data.push({
      originSms: { id: 'o', status: 'received' },
      body: 'x',
      from: 'not-a-phone',
      to: '38200',
    });
    const answer = await post(loop.webhookUrl, JSON.stringify(envelope));
    expect(answer).toMatchObject({ status: 200, body: { accepted: 1, rejected: 1 } });
    const [letter] = await loop.store.listDeadLetters(1);
    expect(letter?.reason).toMatch(/item 1: reply: from/);
  });

  it('classifies an item as a reply by its shape, whatever the envelope type says', async () => {
    const phone = '33612340004';
    for (const [id, type] of [
      ['shape-1', 'sms.status'],
      ['shape-2', 'sms.reply'],
      ['shape-3', 'anything'],
    ] as const) {
      expect(
        (
          await post(
            loop.webhookUrl,
            JSON.stringify({ ...replyNotification(id, phone, `ECHO ${id}`), type }),
          )
        ).status,
      ).toBe(200);
    }
    const bodies = await loop.waitForBodies(phone, 4);
    expect(bodies).toEqual([
      'Echo bot here. Say anything.',
      '#1: ECHO shape-1',
      '#2: ECHO shape-2',
      '#3: ECHO shape-3',
    ]);
  });

  it('moves a message record only forward: a late or repeated status is ignored', async () => {
    const phone = '33612340005';
    await loop.start(phone, 'echo');
    await loop.waitForBodies(phone, 1);
    const record = await waitFor(
      async () => {
        const conversation = await loop.store.getConversation({ location, phone });
        const statuses = (conversation?.snapshot as { context: { statuses: string[] } } | undefined)
          ?.context.statuses;
        return statuses?.some((s) => s.endsWith(':delivered:DELIVRD')) && statuses;
      },
      { message: 'the greeting delivered, as the bot heard it' },
    );
    const smsId = record.find((s) => s.endsWith(':delivered:DELIVRD'))!.split(':')[0]!;
    // The service's own `sent` may have come after `delivered` (they are separate posts) and
    // been ignored already: what the bot heard so far is the reference.
    const heard = record.filter((s) => s.startsWith(smsId));
    // The service delivers a stale `sent` and a repeated `delivered` for the same message.
    expect(
      (
        await post(
          loop.webhookUrl,
          JSON.stringify(statusNotification('late-1', smsId, phone, 'sent')),
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await post(
          loop.webhookUrl,
          JSON.stringify(statusNotification('late-2', smsId, phone, 'delivered', 'DELIVRD')),
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await post(
          loop.webhookUrl,
          JSON.stringify(statusNotification('late-3', smsId, phone, 'errored', 'EXPIRED')),
        )
      ).status,
    ).toBe(200);
    await loop.reply(phone, 'sync');
    await loop.waitForBodies(phone, 2);
    const message = await loop.store.getMessage(phone, smsId);
    expect(message).toMatchObject({
      status: 'delivered',
      statusReason: 'DELIVRD',
      parts: 1,
      runId: expect.any(String),
    });
    const conversation = await loop.store.getConversation({ location, phone });
    const statuses = (conversation!.snapshot as { context: { statuses: string[] } }).context
      .statuses;
    expect(statuses.filter((s) => s.startsWith(smsId))).toEqual(heard);
    expect(heard.at(-1)).toBe(`${smsId}:delivered:DELIVRD`);
  });
});
