import { afterEach, describe, expect, it } from 'vitest';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { createManualClock } from '../../../src/scheduler/create-manual-clock.ts';
import type { CampaignMeta, RecipientRow } from '../../../src/store/campaign-records.ts';
import echo from '../../fixtures/bots/echo-bot.ts';
import { location, type ReplyLoop, startReplyLoop } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';
import { type SmsProxy, startSmsProxy } from './sms-proxy.ts';

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

describe('campaign messages and quiet hours: checked when each message is sent', () => {
  let loop: ReplyLoop | undefined;
  let proxy: SmsProxy | undefined;
  afterEach(async () => {
    await loop?.close();
    await proxy?.close();
    loop = proxy = undefined;
  });

  it('a backlog due at 20:59, queued behind the rate limit, waits for 08:00 once 21:00 comes; the message a 5xx hit is held too, and none goes during the night', async () => {
    const clock = createManualClock(at2059);
    // The service is reached through a proxy that writes down replyflow's clock as each
    // `POST /sms` arrives, and moves that clock to 21:00 when the third one arrives (the one
    // that got the 503, then two sent). One send in flight at a time: the next message's last
    // look at the quiet hours, once it has its slot, comes after that move, so any SMS that
    // reaches the service at night is one the sender let go at night.
    loop = await startReplyLoop({
      registry,
      clock,
      rateLimitPerSecond: 2,
      sendConcurrency: 1,
      compliance: { quietHours: { timeZone: 'Europe/Paris', window: '21:00-08:00' } },
      providerUrl: async (emulatorBase) => {
        proxy = await startSmsProxy(new URL(emulatorBase).origin, {
          clock,
          onSms: (sms) => {
            if (sms.index === 3) clock.set(at2100);
          },
        });
        return `${proxy.url}${new URL(emulatorBase).pathname}`;
      },
    });
    const phones = Array.from({ length: 10 }, (_, i) => `336118000${String(i).padStart(2, '0')}`);
    const meta = campaign(at2059);
    await loop.store.saveCampaign(meta);
    const rows: RecipientRow[] = phones.map((phone, i) => ({
      row: phone,
      record: { state: 'scheduled', due: at2059, line: i + 2, input: {} },
    }));
    await loop.store.upsertRecipients(meta, 1, rows);
    // The first send of the campaign meets a 503 (refused, nothing sent): it is retried later,
    // like any transient failure, and may have reached the service (in doubt).
    await fetch(`${loop.emulator.url}/_emulator/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ path: 'POST /sms', count: 1, status: 503 }),
    });
    await loop.app.fireDueCampaigns!();
    expect(await loop.store.campaignCounts(meta)).toEqual({ started: 10 });
    const sms = () => proxy!.sms;

    // Every message not sent before 21:00 ends up held until 08:00.
    const pendingOf = async () =>
      (
        await Promise.all(phones.map((phone) => loop!.store.pendingOutbound({ location, phone })))
      ).flat();
    const held = await waitFor(
      async () => {
        if (clock.now() !== at2100) return false;
        const pending = await pendingOf();
        return pending.length === phones.length - 2 &&
          pending.every((message) => message.holdUntil === at0800)
          ? pending
          : false;
      },
      { timeout: 30_000, interval: 100, message: 'the rest held until 08:00' },
    );
    // The 503, then two sent before 21:00.
    expect(sms().map(({ index, clockAt, status }) => ({ index, clockAt, status }))).toEqual([
      { index: 1, clockAt: at2059, status: 503 },
      { index: 2, clockAt: at2059, status: 201 },
      { index: 3, clockAt: at2059, status: 201 },
    ]);
    // The message the 503 hit is among the held: attempted once, waiting for the morning.
    const hit = sms()[0]!.to;
    expect(phones).toContain(hit);
    expect(held.find((message) => message.phone === hit)).toMatchObject({
      attempts: 1,
      holdUntil: at0800,
      botInitiated: true,
    });
    expect(await loop.bodiesTo(hit)).toEqual([]);

    // 08:00 in Paris: a process starting then sends the rest, each once.
    clock.set(at0800 + 1_000);
    await loop.startInstance();
    // Time goes on (the retried one may wait, in doubt, for the service's answer and its grace).
    await waitFor(
      async () => {
        clock.advance(1_000);
        return sms().filter((s) => s.status === 201).length === phones.length;
      },
      { timeout: 60_000, interval: 200, message: 'the held messages sent after 08:00' },
    );
    // Not one SMS reached the service during the night (none with the clock in 21:00-08:00).
    expect(sms().filter((s) => s.clockAt >= at2100 && s.clockAt < at0800)).toEqual([]);
    expect(
      sms()
        .slice(3)
        .every((s) => s.clockAt >= at0800),
    ).toBe(true);
    // The message the 503 hit went out after the night, once.
    expect(
      sms()
        .filter((s) => s.to === hit)
        .map((s) => s.status),
    ).toEqual([503, 201]);
    expect(sms().find((s) => s.to === hit && s.status === 201)!.clockAt).toBeGreaterThanOrEqual(
      at0800,
    );
    const bodies = await Promise.all(phones.map((phone) => loop!.bodiesTo(phone)));
    expect(bodies).toEqual(phones.map(() => [greeting]));
  }, 90_000);
});
