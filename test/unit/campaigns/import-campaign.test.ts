import { describe, expect, it } from 'vitest';
import { type ImportRow, importCampaign } from '../../../src/campaigns/import-campaign.ts';
import { createMemoryStore } from '../../../src/store/memory/create-memory-store.ts';

const now = Date.parse('2027-03-01T08:00:00Z');
const definition = {
  location: 'paris',
  name: 'spring',
  bot: 'echo',
  schedule: { at: '2027-03-02T09:00:00Z' },
  ratePerSecond: 10,
  timeZone: 'Europe/Paris',
  late: { kind: 'skip' as const },
};

async function* rowsOf(rows: ImportRow[]): AsyncGenerator<ImportRow> {
  yield* rows;
}

describe('importCampaign stores each row as its record', () => {
  it('a recipient with its time, line and input, and its time zone only when it is its own; an excluded row with its reason', async () => {
    const store = createMemoryStore({});
    const at = now + 86_400_000;
    const outcome = await importCampaign(
      store,
      definition,
      rowsOf([
        { line: 2, phone: '33612345601', input: { name: 'Ann' }, at, timeZone: 'Europe/Paris' },
        { line: 3, phone: '33612345602', input: { name: 'Bob' }, at, timeZone: 'Europe/London' },
        { line: 4, excluded: 'bad_phone', message: 'no phone number' },
        { line: 5, phone: '33612345601', excluded: 'duplicate', message: 'already on line 2' },
        { line: 6, phone: '33612345603', excluded: 'past_due', message: 'too late' },
      ]),
      { now, expectedRows: 5 },
    );
    expect(outcome).toMatchObject({ rows: 5, added: 5, excluded: { bad_phone: 1, duplicate: 1 } });
    const record = async (row: string) =>
      (await store.findRecipient(outcome.meta, row))?.entry.record;
    const scheduled = await record('33612345601');
    expect(scheduled).toMatchObject({
      state: 'scheduled',
      due: at,
      line: 2,
      input: { name: 'Ann' },
    });
    expect(scheduled).not.toHaveProperty('timeZone');
    expect(await record('33612345602')).toMatchObject({
      state: 'scheduled',
      due: at,
      line: 3,
      input: { name: 'Bob' },
      timeZone: 'Europe/London',
    });
    // A bad or repeated phone is kept by its line; a usable one by its phone.
    expect(await record('#4')).toMatchObject({ state: 'skipped', reason: 'bad_phone', line: 4 });
    expect(await record('#5')).toMatchObject({ state: 'skipped', reason: 'duplicate', line: 5 });
    expect(await record('33612345603')).toMatchObject({
      state: 'skipped',
      reason: 'past_due',
      line: 6,
    });
    expect(await store.campaignCounts(outcome.meta)).toEqual({
      scheduled: 2,
      'skipped:bad_phone': 1,
      'skipped:duplicate': 1,
      'skipped:past_due': 1,
    });
  });
});
