import { afterEach, describe, expect, it } from 'vitest';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { createManualClock } from '../../../src/scheduler/create-manual-clock.ts';
import type { CampaignMeta, RecipientRow } from '../../../src/store/campaign-records.ts';
import echo from '../../fixtures/bots/echo-bot.ts';
import { location, type ReplyLoop, startReplyLoop } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';

/** A bot that sends one message when started, and sets no timer. */
const registry = createBotRegistry([{ bot: echo, file: 'echo-bot.ts' }]);
const greeting = 'Echo bot here. Say anything.';

// 2026-12-01 20:59 in Paris (UTC+1); quiet hours 21:00-08:00 there.
const at2059 = Date.parse('2026-12-01T19:59:00Z');
const at2100 = Date.parse('2026-12-01T20:00:30Z');
const at0800 = Date.parse('2026-12-02T07:00:00Z');

function campaign(now: number): CampaignMeta {
  return {
    v: 1,
    location,
    name: 'evening',
    bot: 'echo',
    status: 'active',
    schedule: { at: new Date(now).toISOString() },
    ratePerSecond: 1_000,
    timeZone: 'Europe/Paris',
    late: { kind: 'sendIfWithin', ms: 3_600_000 },
    chunks: 1,
    generation: 1,
    createdAt: now,
    updatedAt: now,
  };
}

const sentTo = async (loop: ReplyLoop, phones: string[]) =>
  (await Promise.all(phones.map((phone) => loop.bodiesTo(phone)))).flat().length;

describe('campaign messages and quiet hours: checked when each message is sent', () => {
  let loop: ReplyLoop | undefined;
  afterEach(async () => {
    await loop?.close();
    loop = undefined;
  });

  it('a backlog due at 20:59, queued behind the rate limit, waits for 08:00 once 21:00 comes; a retry after a 5xx too', async () => {
    const clock = createManualClock(at2059);
    loop = await startReplyLoop({
      registry,
      clock,
      rateLimitPerSecond: 2,
      compliance: { quietHours: { timeZone: 'Europe/Paris', window: '21:00-08:00' } },
    });
    const phones = Array.from({ length: 10 }, (_, i) => `336118000${String(i).padStart(2, '0')}`);
    const meta = campaign(at2059);
    await loop.store.saveCampaign(meta);
    const rows: RecipientRow[] = phones.map((phone, i) => ({
      row: phone,
      record: { state: 'scheduled', due: at2059, line: i + 2, input: {} },
    }));
    await loop.store.upsertRecipients(meta, 1, rows);
    // The first send of the campaign meets a 503: it is retried later, like any transient failure.
    await fetch(`${loop.emulator.url}/_emulator/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ path: 'POST /sms', count: 1, status: 503 }),
    });
    await loop.app.fireDueCampaigns!();
    expect(await loop.store.campaignCounts(meta)).toEqual({ started: 10 });
    // At 2 a second, the messages go one after another: wait for two, then it is 21:00.
    await waitFor(async () => (await sentTo(loop!, phones)) >= 2, {
      timeout: 20_000,
      message: 'the first messages sent before 21:00',
    });
    clock.set(at2100);
    const beforeNight = await sentTo(loop, phones);
    // Every message not sent yet ends up held until 08:00, none goes during the night.
    await waitFor(
      async () => {
        const pending = (
          await Promise.all(phones.map((phone) => loop!.store.pendingOutbound({ location, phone })))
        ).flat();
        return (
          pending.length + (await sentTo(loop!, phones)) === phones.length &&
          pending.every((message) => message.holdUntil === at0800)
        );
      },
      { timeout: 30_000, interval: 100, message: 'the rest held until 08:00' },
    );
    const duringNight = await sentTo(loop, phones);
    expect(duringNight - beforeNight).toBeLessThanOrEqual(1);
    expect(duringNight).toBeLessThan(phones.length);

    // 08:00 in Paris: a process starting then sends the rest, each once.
    clock.set(at0800 + 1_000);
    await loop.startInstance();
    // Time goes on (the retried one waits, in doubt, for the service's answer and its grace).
    await waitFor(
      async () => {
        clock.advance(1_000);
        return (await sentTo(loop!, phones)) === phones.length;
      },
      { timeout: 60_000, interval: 200, message: 'the held messages sent after 08:00' },
    );
    const bodies = await Promise.all(phones.map((phone) => loop!.bodiesTo(phone)));
    expect(bodies).toEqual(phones.map(() => [greeting]));
  }, 90_000);
});
