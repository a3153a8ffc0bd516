import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { LocationConfig } from '../../../src/app/config.ts';
import { campaignReport } from '../../../src/campaigns/campaign-report.ts';
import { createCampaign } from '../../../src/campaigns/create-campaign.ts';
import { createManualClock } from '../../../src/scheduler/create-manual-clock.ts';
import type { RecipientEntry } from '../../../src/store/campaign-records.ts';
import { location, type ReplyLoop, startReplyLoop } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';
import { registry } from '../compliance/compliance-bots.ts';

const hour = 3_600_000;
const t0 = Date.parse('2027-03-01T06:00:00Z');
const phoneOf = (i: number) => `3361${String(6_000_000 + i)}`;
/** Row i's appointment in the first file: two days on, at one of ten hours. */
const firstDate = (i: number) => t0 + 48 * hour + (i % 10) * hour;
/** The 100 rows whose appointment moves (12 h later), the 100 that go, the 100 that come. */
const moved = (i: number) => i % 10 === 3;
const gone = (i: number) => i % 10 === 7;
const newcomers = Array.from({ length: 100 }, (_, n) => 1_000 + n);
const secondDate = (i: number) =>
  i >= 1_000 ? t0 + 53.5 * hour : moved(i) ? firstDate(i) + 12 * hour : firstDate(i);

function csv(rows: number[], dateOf: (i: number) => number): Readable {
  const lines = [
    'phone,at',
    ...rows.map((i) => `+${phoneOf(i)},${new Date(dateOf(i)).toISOString()}`),
  ];
  return Readable.from([`${lines.join('\n')}\n`]);
}

describe('a campaign imported again under its name (real Redis, the emulator, a manual clock)', () => {
  let loop: ReplyLoop | undefined;
  afterEach(async () => {
    await loop?.close();
    loop = undefined;
  });

  it('with 100 changed dates, 100 new rows and 100 removed rows: each is rescheduled, added or cancelled, nothing else changes, and each starts once at its new time', async () => {
    const clock = createManualClock(t0);
    loop = await startReplyLoop({ registry, clock, rateLimitPerSecond: 1_000 });
    const deps = {
      store: loop.store,
      registry,
      locations: [{ name: location, rateLimitPerSecond: 1_000 } as LocationConfig],
      now: () => clock.now(),
    };
    const request = { name: 'visits', bot: 'quiz', relativeTo: 'at', offset: '-24h' };
    const first = Array.from({ length: 1_000 }, (_, i) => i);
    const created = await createCampaign(deps, request, csv(first, firstDate), {
      expectedRows: 1_000,
    });
    expect(created.imported).toMatchObject({ added: 1_000, rescheduled: 0, cancelled: 0 });
    const ref = { location, name: 'visits' };
    const before = await recipients(loop, ref);

    const second = [...first.filter((i) => !gone(i)), ...newcomers];
    expect(second).toHaveLength(1_000);
    const again = await createCampaign(deps, request, csv(second, secondDate));
    expect(again.imported).toMatchObject({
      rows: 1_000,
      added: 100,
      rescheduled: 100,
      unchanged: 800,
      optedOut: 0,
      cancelled: 100,
    });

    // Each recipient as stored: the unchanged exactly as before, the others as the file says.
    const after = await recipients(loop, ref);
    expect(after.size).toBe(1_100);
    for (const i of [...first, ...newcomers]) {
      const record = after.get(phoneOf(i))!.record;
      const old = before.get(phoneOf(i))?.record;
      if (i >= 1_000) {
        expect(record, `new ${i}`).toMatchObject({
          state: 'scheduled',
          due: secondDate(i) - 24 * hour,
        });
      } else if (gone(i)) {
        expect(record, `gone ${i}`).toMatchObject({ state: 'skipped', reason: 'cancelled' });
      } else if (moved(i)) {
        expect(record, `moved ${i}`).toMatchObject({
          state: 'scheduled',
          due: secondDate(i) - 24 * hour,
          revision: old!.revision + 1,
        });
      } else {
        // Its line is the new file's; its time, input and revision are what they were.
        expect(
          { ...record, generation: old!.generation, line: old!.line },
          `unchanged ${i}`,
        ).toEqual(old);
      }
    }
    expect((await campaignReport(loop.store, ref)).recipients).toEqual({
      scheduled: 1_000,
      'skipped:cancelled': 100,
    });

    // Fire at every time of either file: a moved row starts at its new time only, a gone one never.
    const dueOf = new Map(second.map((i) => [phoneOf(i), secondDate(i) - 24 * hour]));
    const times = [...new Set([...first.map(firstDate), ...second.map(secondDate)])]
      .map((date) => date - 24 * hour)
      .sort((a, b) => a - b);
    for (const at of times) {
      clock.set(at);
      await loop.app.fireDueCampaigns!();
      const counts = await loop.store.campaignCounts(ref);
      const dueSoFar = [...dueOf.values()].filter((due) => due <= at).length;
      expect(counts.started ?? 0, new Date(at).toISOString()).toBe(dueSoFar);
      // The worker applies the starts before the clock moves on: each conversation starts then.
      const dueNow = [...dueOf].filter(([, due]) => due === at).map(([phone]) => phone);
      await waitFor(
        async () => {
          const records = await Promise.all(
            dueNow.map((phone) => loop!.store.getConversation({ location, phone })),
          );
          return records.every((record) => record !== null);
        },
        {
          timeout: 30_000,
          interval: 50,
          message: `the starts due at ${new Date(at).toISOString()}`,
        },
      );
    }
    for (const [phone, due] of dueOf) {
      const record = await loop.store.getConversation({ location, phone });
      expect(record?.startedAt, phone).toBe(due);
    }
    for (const i of first.filter(gone)) {
      expect(await loop.store.getConversation({ location, phone: phoneOf(i) })).toBeNull();
    }
    // Once: firing again starts nothing more, and each moved row got one question.
    await loop.app.fireDueCampaigns!();
    expect((await campaignReport(loop.store, ref)).recipients).toEqual({
      started: 1_000,
      'skipped:cancelled': 100,
    });
    for (const i of first.filter(moved).slice(0, 20)) {
      expect(await loop.waitForBodies(phoneOf(i), 1), phoneOf(i)).toHaveLength(1);
    }
  }, 180_000);
});

async function recipients(
  loop: ReplyLoop,
  ref: { location: string; name: string },
): Promise<Map<string, RecipientEntry>> {
  const meta = await loop.store.getCampaign(ref);
  const byRow = new Map<string, RecipientEntry>();
  for await (const batch of loop.store.scanRecipients(meta!)) {
    for (const entry of batch) byRow.set(entry.row, entry);
  }
  return byRow;
}
