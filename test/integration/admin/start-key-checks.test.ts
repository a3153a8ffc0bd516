import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelStartByKey } from '../../../src/admin/cancel-start-by-key.ts';
import type { LocationConfig } from '../../../src/app/config.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import echo from '../../fixtures/bots/echo-bot.ts';
import { location, type ReplyLoop, startReplyLoop } from '../../support/reply-loop.ts';

const token = 'f3a9c1e7b2d48a6f0e5c9b1d7a3f8e2c';

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

describe("the admin start's strings are checked before anything is stored (real Redis and HTTP)", () => {
  let loop: ReplyLoop;
  beforeAll(async () => {
    loop = await startReplyLoop({
      registry: createBotRegistry([{ bot: echo, file: 'echo.ts' }]),
      adminToken: token,
    });
  });
  afterAll(() => loop?.close());

  /** POST /admin/conversations with a body written as given: JSON escapes stay escapes. */
  async function start(body: string): Promise<Answer> {
    const res = await fetch(`${loop.app.url}/admin/conversations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body,
    });
    return { status: res.status, body: (await res.json()) as Answer['body'] };
  }

  async function cancel(key: string): Promise<Answer> {
    const res = await fetch(
      `${loop.app.url}/admin/conversations/scheduled/${encodeURIComponent(key)}`,
      { method: 'DELETE', headers: { authorization: `Bearer ${token}` } },
    );
    return { status: res.status, body: (await res.json()) as Answer['body'] };
  }

  it('refuses a key with a lone surrogate with 400 naming it, and keeps nothing under it', async () => {
    const refused = await start('{"bot":"echo","phone":"+33612347001","key":"k\\ud800"}');
    expect(refused).toEqual({
      status: 400,
      body: { error: 'key: is not well-formed text (a lone UTF-16 surrogate)', field: 'key' },
    });
    // Stored repaired, it would have been this key's start: this one is new.
    const other = await start('{"bot":"echo","phone":"+33612347001","key":"k\\ufffd"}');
    expect(other.status).toBe(202);
    expect(other.body.duplicate).toBe(false);
  });

  it('refuses a lone surrogate in any field of a scheduled start, naming the field', async () => {
    for (const [field, value] of [
      ['at', '2030-01-01T09:00\\ud800'],
      ['relativeTo', 'at\\udc00'],
      ['offset', '-1d\\ud800'],
      ['deliveryWindow', '09:00-19:00\\ud800'],
      ['sendIfWithin', '6h\\ud800'],
      ['timeZone', 'Europe/Paris\\ud800'],
    ]) {
      const body = `{"bot":"echo","phone":"+33612347002","key":"k-${field}","input":{"at":"2030-01-01T09:00:00Z"},"${field}":"${value}"}`;
      const answer = await start(body);
      expect(answer.status, field).toBe(400);
      expect(answer.body, field).toEqual({
        error: `${field}: is not well-formed text (a lone UTF-16 surrogate)`,
        field,
      });
    }
    expect(await loop.store.getConversation({ location, phone: '33612347002' })).toBeNull();
  });

  it('refuses to cancel a key no start can have: over 200 characters, a lone surrogate', async () => {
    const long = await cancel('x'.repeat(201));
    expect(long).toEqual({
      status: 400,
      body: { error: 'key: 1 to 200 characters, not 201', field: 'key' },
    });
    // `replyflow conversations cancel` calls the same function.
    const answer = await cancelStartByKey(
      {
        store: loop.store,
        locations: [{ name: location } as LocationConfig],
        now: () => Date.now(),
      },
      { key: 'k\ud800' },
    );
    expect(answer).toEqual({
      status: 400,
      body: { error: 'key: is not well-formed text (a lone UTF-16 surrogate)', field: 'key' },
    });
    // A key a start can have is still looked for.
    expect((await cancel('never-given')).status).toBe(404);
  });
});
