import { afterEach, describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import { z } from 'zod';
import type { BotEvent } from '../../../src/bot/bot-events.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { defineBot } from '../../../src/bot/define-bot.ts';
import { reply } from '../../../src/bot/reply.ts';
import { createManualClock } from '../../../src/scheduler/create-manual-clock.ts';
import { processedCount } from '../../support/echo-load.ts';
import { location, type ReplyLoop, startReplyLoop } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';

const token = 'admin-6d8f0b2c4e1a3f5d7b9c0e2a4f6b8d1c';
const hour = 3_600_000;

/** One reminder when started, then the conversation ends: one SMS per start, and no timer. */
const confirm = defineBot({
  id: 'confirm',
  input: z.object({ name: z.string().min(1).max(40), at: z.string() }),
  machine: setup({
    types: {
      events: {} as BotEvent,
      input: {} as { input?: { name: string; at: string } },
      context: {} as { name: string },
    },
  }).createMachine({
    context: ({ input }) => ({ name: input.input?.name ?? '' }),
    type: 'final',
    entry: reply(({ context }) => `Hello ${context.name}, see you tomorrow.`),
  }),
});
const registry = createBotRegistry([{ bot: confirm, file: 'confirm.ts' }]);

// Monday 22 March 2027, 00:00 in Paris (UTC+1). Paris moves to summer time (UTC+2) on Sunday 28
// at 02:00: the week's appointments are on both sides of it.
const monday = Date.parse('2027-03-21T23:00:00Z');

/** The instant of a wall time in Paris, from the zone's offset that day (the test's own reading). */
function parisInstant(date: string, time: string): number {
  const offset = new Intl.DateTimeFormat('en-US', {
    timeZone: 'Europe/Paris',
    timeZoneName: 'longOffset',
  })
    .formatToParts(new Date(`${date}T12:00:00Z`))
    .find((part) => part.type === 'timeZoneName')!
    .value.replace('GMT', '');
  return Date.parse(`${date}T${time}:00${offset}`);
}

type Kind = 'ok' | 'opted_out' | 'bad_phone' | 'bad_input' | 'bad_date';

/**
 * 10,000 appointments, every hour from 08:00 to 17:00, Tuesday to Monday, written as wall times
 * in Paris. 500 of the phones opted out; 50 rows are bad: 17 numbers that are no phone, 17 names
 * the bot's schema refuses (empty), 16 dates that are no date.
 */
function appointments() {
  return Array.from({ length: 10_000 }, (_, i) => {
    const date = `2027-03-${String(23 + (i % 7)).padStart(2, '0')}`;
    const time = `${String(8 + (Math.floor(i / 7) % 10)).padStart(2, '0')}:00`;
    const phone = `3361${String(3_000_000 + i).padStart(7, '0')}`;
    const bad =
      i % 200 === 7
        ? (['bad_phone', 'bad_input', 'bad_date'] as const)[((i / 200) % 3) | 0]
        : undefined;
    const kind: Kind = bad ?? (i % 20 === 3 ? 'opted_out' : 'ok');
    const written =
      kind === 'bad_phone'
        ? `12345,Bad ${i},${date}T${time}`
        : kind === 'bad_input'
          ? `+${phone},,${date}T${time}`
          : kind === 'bad_date'
            ? `+${phone},Person ${i},next tuesday`
            : `+${phone},Person ${i},${date}T${time}`;
    // Line 1 is the header.
    return { line: i + 2, phone, kind, due: parisInstant(date, time) - 24 * hour, written };
  });
}

describe('a campaign from a CSV file, 24 h before each appointment, under a manual clock', () => {
  let loop: ReplyLoop | undefined;
  afterEach(async () => {
    await loop?.close();
    loop = undefined;
  });

  // Where its time goes: the import and the dry run (3 x 10,000 rows over HTTP, the opt-outs
  // first) and, above all, the pipeline of each start in one process (the runner's fire, the
  // worker's step, the sender's send, the emulator); the test's own waits and reads are a few
  // percent. About 40 ms a start with the machine loaded 15 times over, so its time-out is long.
  it('starts 10,000 recipients each within a second of its time, skips 500 opted out, reports 50 bad rows by line, and accounts for every row', async () => {
    const clock = createManualClock(monday);
    // No status webhook: 10,000 SMS would post 20,000 statuses to the test's own server, a
    // flood of connections this test does not need (it counts starts and SMS).
    loop = await startReplyLoop({
      registry,
      clock,
      rateLimitPerSecond: 1_000,
      webhook: false,
      adminToken: token,
    });
    const running = loop;
    const began = performance.now();
    const people = appointments();
    const count = (kind: Kind) => people.filter((p) => p.kind === kind).length;
    expect([count('opted_out'), count('bad_phone'), count('bad_input'), count('bad_date')]).toEqual(
      [500, 17, 17, 16],
    );
    const admin = (path: string, body: string, type = 'text/csv') =>
      fetch(`${running.app.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': type },
        body,
      });

    // The opt-outs come first, through the suppression list's import.
    const optedOut = people.filter((p) => p.kind === 'opted_out');
    const suppressions = await admin(
      '/admin/suppressions',
      ['phone', ...optedOut.map((p) => `+${p.phone}`)].join('\n'),
    );
    expect(await suppressions.json()).toMatchObject({ imported: 500 });

    // The campaign, through the import path of `replyflow campaigns create` and the admin API.
    const csv = ['phone,name,at', ...people.map((p) => p.written)].join('\n');
    const query =
      'name=march&bot=confirm&relativeTo=at&offset=-24h&timeZone=Europe/Paris&rate=1000/s';
    const byReason = { opted_out: 500, bad_phone: 17, bad_input: 17, bad_date: 16 };
    const dry = await admin(`/admin/campaigns?${query}&dryRun=true`, csv);
    expect(dry.status).toBe(200);
    expect(await dry.json()).toMatchObject({ rows: 10_000, excluded: 550, byReason });
    expect(await running.store.getCampaign({ location, name: 'march' })).toBeNull();
    const created = await admin(`/admin/campaigns?${query}`, csv);
    const report = (await created.json()) as {
      byReason: Record<string, number>;
      errors: Array<{ line: number; reason: string }>;
      errorCount: number;
    };
    expect(created.status).toBe(201);
    expect(report).toMatchObject({ rows: 10_000, accepted: 9_450, excluded: 550, byReason });
    // Each bad row reported by its line, with its reason.
    const bad = people.filter((p) => p.kind.startsWith('bad_'));
    expect(report.errorCount).toBe(50);
    expect(report.errors.map((e) => [e.line, e.reason])).toEqual(bad.map((p) => [p.line, p.kind]));

    const imported = performance.now();
    const sending = people.filter((p) => p.kind === 'ok');
    const slots = [...new Set(sending.map((p) => p.due))].sort((a, b) => a - b);
    expect(slots).toHaveLength(70);
    /** The recipients started so far, by the campaign's counters. */
    const startedCount = async () =>
      (await running.store.campaignCounts({ location, name: 'march' })).started ?? 0;
    const startedAt = new Map<string, number>();
    let startedSoFar = 0;
    for (const due of slots) {
      const dueNow = sending.filter((p) => p.due === due);
      // 600 ms before its time: none of this hour's recipients starts.
      clock.set(due - 600);
      await running.app.fireDueCampaigns!();
      expect(await startedCount(), new Date(due).toISOString()).toBe(startedSoFar);
      // 400 ms after it: every one of them does, and no later one.
      clock.set(due + 400);
      await running.app.fireDueCampaigns!();
      startedSoFar += dueNow.length;
      expect(await startedCount(), new Date(due).toISOString()).toBe(startedSoFar);
      // The worker takes each start and the sender sends its SMS before the clock moves on,
      // so each conversation's start time is the clock's when it was fired (and no send lease
      // looks expired to the others when the clock jumps an hour). The emulator's count of SMS
      // first (one cheap read), then the mailboxes and outboxes of this hour's recipients.
      await waitFor(async () => (await processedCount(running.emulator.url)) >= startedSoFar, {
        timeout: 30_000,
        interval: 20,
        message: `the SMS of the starts due ${new Date(due).toISOString()}`,
      });
      await waitFor(
        async () => {
          const pending = await Promise.all(
            dueNow.map(async ({ phone }) => {
              const [events, outbound] = await Promise.all([
                running.store.pendingEvents({ location, phone }),
                running.store.pendingOutbound({ location, phone }),
              ]);
              return events.length + outbound.length;
            }),
          );
          return pending.every((n) => n === 0);
        },
        { timeout: 30_000, interval: 50, message: `the starts due ${new Date(due).toISOString()}` },
      );
      const records = await Promise.all(
        dueNow.map(({ phone }) => running.store.getConversation({ location, phone })),
      );
      records.forEach((record, i) => {
        if (record) startedAt.set(dueNow[i]!.phone, record.startedAt);
      });
    }
    const fired = performance.now();
    // Each conversation started within 1 s of its computed time (24 h before its appointment,
    // read on the Paris clock across the change to summer time), and not before it.
    const off = sending.filter((p) => {
      const at = startedAt.get(p.phone);
      return at === undefined || at < p.due || at - p.due > 1_000;
    });
    expect(off.map((p) => [p.phone, p.due, startedAt.get(p.phone)])).toEqual([]);

    // Every row is one recipient in exactly one state, and the counters agree with them.
    const meta = (await running.store.getCampaign({ location, name: 'march' }))!;
    const stateOf = new Map<string, string>();
    for await (const batch of running.store.scanRecipients(meta)) {
      for (const { row, record } of batch) {
        expect(stateOf.has(row), row).toBe(false);
        stateOf.set(row, record.reason ? `${record.state}:${record.reason}` : record.state);
      }
    }
    expect(stateOf.size).toBe(10_000);
    const expected = (p: (typeof people)[number]) =>
      p.kind === 'ok' ? 'started' : `skipped:${p.kind}`;
    const wrong = people.filter(
      (p) => stateOf.get(p.kind === 'bad_phone' ? `#${p.line}` : p.phone) !== expected(p),
    );
    expect(wrong.map((p) => [p.line, p.kind])).toEqual([]);
    const counters = await running.store.campaignCounts(meta);
    expect(counters).toEqual({
      started: 9_450,
      'skipped:opted_out': 500,
      'skipped:bad_phone': 17,
      'skipped:bad_input': 17,
      'skipped:bad_date': 16,
    });
    expect(Object.values(counters).reduce((a, b) => a + b, 0)).toBe(10_000);

    // At the emulator: one SMS to each started recipient, none to any of the 500 opted out
    // (nor to a bad row's phone).
    const all = (await (
      await fetch(`${running.emulator.url}/_emulator/messages?location=${location}`)
    ).json()) as Array<{ to: string }>;
    const perPhone = new Map<string, number>();
    for (const sms of all) perPhone.set(sms.to, (perPhone.get(sms.to) ?? 0) + 1);
    expect(sending.filter((p) => perPhone.get(p.phone) !== 1).map((p) => p.phone)).toEqual([]);
    expect(optedOut.filter((p) => perPhone.has(p.phone)).map((p) => p.phone)).toEqual([]);
    expect(bad.filter((p) => perPhone.has(p.phone)).map((p) => p.phone)).toEqual([]);
    expect(all).toHaveLength(9_450);
    const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    console.log(
      `campaign from a CSV: imports and dry run ${seconds(imported - began)}, 70 hours fired and sent ${seconds(fired - imported)}, checks ${seconds(performance.now() - fired)}`,
    );
  }, 480_000);
});
