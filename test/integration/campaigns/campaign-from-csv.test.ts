import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { campaignReport } from '../../../src/campaigns/campaign-report.ts';
import { createCampaign } from '../../../src/campaigns/create-campaign.ts';
import { openErrorsFile } from '../../../src/campaigns/errors-file.ts';
import { createManualClock } from '../../../src/scheduler/create-manual-clock.ts';
import { location, type ReplyLoop, startReplyLoop } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';
import { registry } from '../compliance/compliance-bots.ts';

const hour = 3_600_000;
// Monday 2027-03-01, 00:00 in Paris (UTC+1).
const monday = Date.parse('2027-02-28T23:00:00Z');

/** The campaign's recipients: appointments every hour from 08:00 to 17:00, Tuesday to Monday. */
function appointments(count: number) {
  return Array.from({ length: count }, (_, i) => {
    const day = 1 + (i % 7);
    const slot = 8 + (Math.floor(i / 7) % 10);
    const at = monday + day * 24 * hour + slot * hour;
    return { phone: `3361${String(3_000_000 + i).padStart(7, '0')}`, at };
  });
}

describe('a campaign from a CSV file, 24 h before each appointment, under a manual clock', () => {
  let loop: ReplyLoop | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await loop?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
    loop = dir = undefined;
  });

  it('starts 10,000 recipients each within a second of its time, skips 500 opted out, reports 50 bad rows by line, and accounts for every row', async () => {
    const clock = createManualClock(monday);
    // No status webhook: 10,000 SMS would post 20,000 statuses to the test's own server, a
    // flood of connections this test does not need (it counts starts and SMS).
    loop = await startReplyLoop({ registry, clock, rateLimitPerSecond: 1_000, webhook: false });
    const people = appointments(10_000);
    const optedOut = new Set(people.filter((_, i) => i % 20 === 3).map((p) => p.phone));
    await loop.store.addSuppressions(
      location,
      [...optedOut].map((phone) => ({ phone, at: monday, reason: 'imported' })),
      'import',
    );
    // 50 bad rows among them: 25 numbers that are no phone, 25 dates that are no date (none of
    // them opted out: i % 20 === 3 never meets i % 400 of 7 or 11).
    const badLines = new Set<number>();
    const lines = ['phone,name,at'];
    people.forEach((person, i) => {
      const line = lines.length + 1;
      if (i % 400 === 7) {
        badLines.add(line);
        lines.push(`12345,Bad ${i},${new Date(person.at).toISOString()}`);
      } else if (i % 400 === 11) {
        badLines.add(line);
        lines.push(`+${person.phone},Bad ${i},next tuesday`);
      } else {
        lines.push(`+${person.phone},Person ${i},${new Date(person.at).toISOString()}`);
      }
    });
    expect(badLines.size).toBe(50);
    dir = await mkdtemp(join(tmpdir(), 'campaign-'));
    const errors = await openErrorsFile(join(dir, 'errors.csv'));
    const deps = {
      store: loop.store,
      registry,
      locations: [{ name: location, rateLimitPerSecond: 1_000 } as never],
      now: () => clock.now(),
    };
    const request = {
      name: 'march',
      bot: 'quiz',
      relativeTo: 'at',
      offset: '-24h',
      timeZone: 'Europe/Paris',
      rate: '1000/s',
    };
    const preview = await createCampaign(
      deps,
      { ...request, dryRun: true },
      Readable.from([lines.join('\n')]),
    );
    expect(preview.summary).toMatchObject({ rows: 10_000, excluded: 550 });
    expect(preview.summary.byReason).toMatchObject({ bad_phone: 25, bad_date: 25, opted_out: 500 });
    expect(await loop.store.getCampaign({ location, name: 'march' })).toBeNull();

    const created = await createCampaign(deps, request, Readable.from([lines.join('\n')]), {
      errors,
      expectedRows: 10_000,
    });
    await errors.close();
    expect(created.summary.byReason).toMatchObject({ bad_phone: 25, bad_date: 25, opted_out: 500 });
    const errorLines = (await readFile(join(dir, 'errors.csv'), 'utf8'))
      .trim()
      .split('\n')
      .slice(1)
      .map((row) => Number(row.split(',')[0]));
    expect(new Set(errorLines)).toEqual(badLines);

    // Step through every appointment hour: at each, what is due starts, nothing later does.
    const dueOf = new Map(people.map((p) => [p.phone, p.at - 24 * hour]));
    const times = [...new Set(dueOf.values())].sort((a, b) => a - b);
    const started = new Map<string, number>();
    for (const at of times) {
      clock.set(at);
      await loop.app.fireDueCampaigns!();
      const report = await campaignReport(loop.store, { location, name: 'march' });
      const dueSoFar = people.filter(
        (p, i) => dueOf.get(p.phone)! <= at && !optedOut.has(p.phone) && !badLines.has(i + 2),
      ).length;
      expect(report.recipients.started ?? 0).toBe(dueSoFar);
      await waitFor(
        async () => {
          const due = people.filter(
            (p, i) => dueOf.get(p.phone) === at && !optedOut.has(p.phone) && !badLines.has(i + 2),
          );
          const records = await Promise.all(
            due.map((p) => loop!.store.getConversation({ location, phone: p.phone })),
          );
          records.forEach((record, i) => {
            if (record) started.set(due[i]!.phone, record.startedAt);
          });
          return records.every((record) => record !== null);
        },
        {
          timeout: 30_000,
          interval: 50,
          message: `the starts due at ${new Date(at).toISOString()}`,
        },
      );
    }
    for (const [phone, startedAt] of started) {
      expect(Math.abs(startedAt - dueOf.get(phone)!)).toBeLessThanOrEqual(1_000);
    }
    const report = await campaignReport(loop.store, { location, name: 'march' });
    expect(report.total).toBe(10_000);
    expect(report.recipients).toEqual({
      started: started.size,
      'skipped:opted_out': 500,
      'skipped:bad_phone': 25,
      'skipped:bad_date': 25,
    });
    // The opted-out numbers got nothing.
    for (const phone of [...optedOut].slice(0, 50)) expect(await loop.bodiesTo(phone)).toEqual([]);
  }, 300_000);
});
