import { afterEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../../../src/scheduler/create-manual-clock.ts';
import { chunksFor } from '../../../src/store/campaign-id.ts';
import type { CampaignMeta, RecipientRow } from '../../../src/store/campaign-records.ts';
import { location, type ReplyLoop, settle, startReplyLoop } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';
import { registry } from '../compliance/compliance-bots.ts';

const t0 = Date.parse('2027-03-01T08:00:00Z');

function campaign(rows: number, overrides: Partial<CampaignMeta> = {}): CampaignMeta {
  return {
    v: 1,
    location,
    name: 'march',
    bot: 'quiz',
    status: 'active',
    schedule: { relativeTo: 'at', offset: '-24h' },
    ratePerSecond: 1_000,
    timeZone: 'UTC',
    late: { kind: 'skip' },
    chunks: chunksFor(rows, 16),
    generation: 1,
    createdAt: t0,
    updatedAt: t0,
    ...overrides,
  };
}

describe('the campaign runner, on real Redis with the emulator and a manual clock', () => {
  let loop: ReplyLoop | undefined;
  afterEach(async () => {
    await loop?.close();
    loop = undefined;
  });

  it('starts each recipient once, at its time and not before, and counts every one', async () => {
    const clock = createManualClock(t0);
    // It counts starts and SMS: no status webhook to feed.
    loop = await startReplyLoop({ registry, clock, webhook: false });
    const meta = campaign(300);
    await loop.store.saveCampaign(meta);
    const phones = Array.from({ length: 300 }, (_, i) => `3361200${String(i).padStart(4, '0')}`);
    const dueOf = (i: number) => t0 + 60_000 * (1 + (i % 3));
    const rows: RecipientRow[] = phones.map((phone, i) => ({
      row: phone,
      record: { state: 'scheduled', due: dueOf(i), line: i + 2, input: { n: i } },
    }));
    await loop.store.markOptedOut({ location, phone: phones[0]! }, t0);
    rows.push({ row: '#400', record: { state: 'skipped', reason: 'bad_phone', line: 400 } });
    expect(await loop.store.upsertRecipients(meta, 1, rows)).toMatchObject({
      added: 301,
      optedOut: 1,
    });

    for (const step of [1, 2, 3]) {
      clock.set(t0 + 60_000 * step);
      await loop.app.fireDueCampaigns!();
      const counts = await loop.store.campaignCounts(meta);
      // Every recipient due by now has started (or was skipped); none due later has.
      const dueSoFar = phones.filter((_, i) => dueOf(i) <= clock.now()).length;
      expect((counts.started ?? 0) + (counts['skipped:opted_out'] ?? 0)).toBe(dueSoFar);
      // The worker takes the starts, and the sender sends their questions, before the clock
      // moves on: each conversation starts then. A jump of the manual clock past the send lease
      // while a lane holds an outbox is a stalled sender to the others: they would take it over
      // and hold its send in doubt for a grace that this clock, stopped after the last step,
      // never ends (what failed once in a full run).
      const due = phones.filter((_, i) => i > 0 && dueOf(i) <= clock.now());
      await waitFor(
        async () => {
          const records = await Promise.all(
            due.map((phone) => loop!.store.getConversation({ location, phone })),
          );
          return records.every((record) => record !== null);
        },
        { timeout: 20_000, interval: 50, message: `the starts due by step ${step} taken` },
      );
      await waitFor(
        async () => {
          const sent = await Promise.all(due.map((p) => loop!.bodiesTo(p)));
          return sent.every((bodies) => bodies.length >= 1);
        },
        { timeout: 20_000, interval: 50, message: `the questions due by step ${step} sent` },
      );
    }
    await waitFor(
      async () => {
        const sent = await Promise.all(phones.slice(1).map((p) => loop!.bodiesTo(p)));
        return sent.every((bodies) => bodies.length === 1);
      },
      { timeout: 30_000, interval: 100, message: 'each started recipient got its question' },
    );
    for (const phone of phones.slice(0, 3)) await settle(loop, phone);
    expect(await loop.bodiesTo(phones[0]!)).toEqual([]);
    for (const [i, phone] of phones.entries()) {
      if (i === 0) continue;
      const record = await loop.store.getConversation({ location, phone });
      expect(record).toMatchObject({ botId: 'quiz', campaign: { name: 'march', row: phone } });
      expect(record!.startedAt).toBe(dueOf(i));
    }
    expect(await loop.store.campaignCounts(meta)).toEqual({
      started: 299,
      'skipped:opted_out': 1,
      'skipped:bad_phone': 1,
    });
    // Firing again starts nothing twice.
    await loop.app.fireDueCampaigns!();
    expect(await loop.bodiesTo(phones[1]!)).toHaveLength(1);
  }, 60_000);
});
