import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { blastBot } from '../../fixtures/blast-bot.ts';
import { type ReplyLoop, startReplyLoop } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';

/**
 * replyflow set above the service's limit (an operator's mistake, or another process using the
 * same key pair): the service answers 429 with Retry-After, and the sender must pause every send
 * until then, lose nothing and send nothing twice. send-faults.test.ts runs under the limit and
 * so meets no 429; this test makes them certain.
 */
const serviceLimit = 10;
const limit = 40;
const perConversation = 10;
const phones = Array.from({ length: 10 }, (_, i) => `3361300${String(i).padStart(4, '0')}`);

const blast = blastBot(perConversation);

interface LoggedRequest {
  at: number;
  method: string;
  path: string;
  status: number;
}

describe('a service that answers 429', () => {
  let loop: ReplyLoop;
  beforeAll(async () => {
    loop = await startReplyLoop({
      registry: createBotRegistry([{ bot: blast, file: 'blast.ts' }]),
      emulator: { rateLimitPerSecond: serviceLimit },
      rateLimitPerSecond: limit,
      sendConcurrency: 2,
    });
  });
  afterAll(() => loop.close());

  it('pauses every send until Retry-After has passed, and delivers each message once', {
    timeout: 120_000,
  }, async () => {
    for (const phone of phones) await loop.start(phone, 'blast');
    const total = phones.length * perConversation;
    const messages = await waitFor(
      async () => {
        const res = await fetch(`${loop.emulator.url}/_emulator/messages`);
        const list = (await res.json()) as Array<{ to: string; body: string }>;
        return list.length >= total && list;
      },
      { timeout: 100_000, interval: 250, message: `${total} messages accepted` },
    );
    const bodies = messages.map((m) => `${m.to}|${m.body}`);
    expect(new Set(bodies).size).toBe(bodies.length);
    expect(bodies.length).toBe(total);

    const log = (
      (await (await fetch(`${loop.emulator.url}/_emulator/requests`)).json()) as LoggedRequest[]
    ).filter((r) => r.method === 'POST' && r.path.startsWith('/v1/sms'));
    const limited = log.filter((r) => r.status === 429);
    // Sending at 40/s to a service that takes 10/s: it must have said no, or this proves nothing.
    expect(limited.length).toBeGreaterThan(0);
    // After a 429 (Retry-After: 1 s) nothing more is sent until that second has passed, but for
    // requests already on the wire: 300 ms of grace (the emulator logs a request when its event
    // loop reads it). A sender that did not pause would send ~25 requests in the 650 ms left.
    const early = limited.flatMap((r) =>
      log
        .filter((n) => n.at > r.at + 300 && n.at < r.at + 950)
        .map((n) => `${n.method} ${n.path} at ${n.at}, ${n.at - r.at} ms after a 429`),
    );
    expect(early).toEqual([]);
    // Each 429 cost one request, not a message: accepted ones are exactly the messages.
    expect(log.filter((r) => r.status < 300).length).toBe(total);
  });
});
