import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import type { BotEvent } from '../../../src/bot/bot-events.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { defineBot } from '../../../src/bot/define-bot.ts';
import { reply } from '../../../src/bot/reply.ts';
import { type ReplyLoop, startReplyLoop } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';

/** On start, one message naming the phone. */
const hello = defineBot({
  id: 'hello',
  machine: setup({
    types: { events: {} as BotEvent, input: {} as { phone: string } },
  }).createMachine({
    context: ({ input }) => ({ phone: input.phone }),
    entry: reply(({ context }) => `hello ${(context as { phone: string }).phone}`),
  }),
});

const conversations = 40;
const answered500 = 20;
const timedOut = 6;
const phones = Array.from(
  { length: conversations },
  (_, i) => `3361200${String(i).padStart(4, '0')}`,
);

describe('sends that fail ambiguously are in doubt, not sent twice', () => {
  let loop: ReplyLoop;
  const lines: Array<Record<string, unknown>> = [];
  beforeAll(async () => {
    loop = await startReplyLoop({
      registry: createBotRegistry([{ bot: hello, file: 'hello.ts' }]),
      sendConcurrency: 4,
      // Generous, for a loaded machine: the statuses come well before, and end the doubt then.
      inDoubtGraceMs: 20_000,
      // A service slower than this has timed out: the request may still be processed.
      providerTimeouts: { headersMs: 400 },
      logStream: new Writable({
        write(chunk, _encoding, done) {
          for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
          done();
        },
      }),
    });
    const fault = async (body: unknown) => {
      const res = await fetch(`${loop.emulator.url}/_emulator/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.ok).toBe(true);
    };
    // Accepted, then answered 500; then accepted and answered long after the client gave up.
    await fault({ path: 'POST /sms', count: answered500, status: 500, when: 'after' });
    await fault({ path: 'POST /sms', count: timedOut, status: 500, when: 'after', delayMs: 1_500 });
  });
  afterAll(() => loop.close());

  it('delivers every message exactly once, and counts the sends in doubt', {
    timeout: 60_000,
  }, async () => {
    for (const phone of phones) await loop.start(phone, 'hello', {});
    const counts = await waitFor(
      async () => {
        const res = await fetch(`${loop.emulator.url}/_emulator/messages`);
        const all = (await res.json()) as Array<{ to: string; body: string }>;
        const byPhone = new Map<string, number>();
        for (const m of all) byPhone.set(m.to, (byPhone.get(m.to) ?? 0) + 1);
        const settled = phones.every((p) => byPhone.has(p)) && (await outboxesEmpty());
        return settled && byPhone;
      },
      { timeout: 45_000, message: 'every conversation has its message and every outbox is empty' },
    );
    // Exactly once each: the ambiguous failures were not sent again.
    expect(phones.map((p) => counts.get(p))).toEqual(phones.map(() => 1));
    for (const phone of phones) expect(await loop.bodiesTo(phone)).toEqual([`hello ${phone}`]);

    const inDoubt = lines.filter((l) => l.code === 'in_doubt');
    const foundSent = lines.filter((l) => String(l.msg).includes('recorded, not sent again'));
    expect(inDoubt.length).toBe(answered500 + timedOut);
    expect(foundSent.length).toBe(answered500 + timedOut);
    // The log never shows a full number.
    for (const line of inDoubt) expect(JSON.stringify(line)).not.toMatch(/3361200\d{4}/);
  });

  async function outboxesEmpty(): Promise<boolean> {
    for (const phone of phones) {
      const key = { location: 'paris', phone };
      if ((await loop.store.pendingOutbound(key)).length > 0) return false;
    }
    return true;
  }
});
