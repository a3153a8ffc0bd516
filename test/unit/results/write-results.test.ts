import { Writable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { writeResults } from '../../../src/results/write-results.ts';
import type { ConversationResult } from '../../../src/store/records.ts';
import type { Store } from '../../../src/store/store.ts';

const result = (
  phone: string,
  fields: Record<string, unknown>,
  campaign?: string,
): ConversationResult => ({
  v: 1,
  location: 'paris',
  phone,
  runId: `run-${phone}`,
  bot: 'survey',
  botVersion: 'v1',
  startedAt: Date.parse('2027-03-01T09:00:00Z'),
  endedAt: Date.parse('2027-03-01T09:05:00Z'),
  endCode: 'completed',
  fields,
  ...(campaign && { campaign: { name: campaign, row: phone } }),
});

/** Ended results only: no active run is left to read from the records. */
function storeOf(results: ConversationResult[]): Pick<Store, 'listResults' | 'scanConversations'> {
  return {
    async *listResults() {
      yield results;
    },
    async scanConversations() {
      return { cursor: '0', records: [] };
    },
  };
}

async function written(
  results: ConversationResult[],
  options: Parameters<typeof writeResults>[3],
): Promise<string> {
  let text = '';
  const out = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  await writeResults(storeOf(results), 'survey', out, options);
  return text;
}

const results = [
  result('33612345601', { comment: '=HYPERLINK("http://x","click")', score: 9 }, 'spring'),
  result('33612345602', { comment: '+33 call me', score: -1 }, 'autumn'),
  result('33612345603', { comment: 'fine' }),
];

describe('writeResults', () => {
  it('names each run’s campaign and recipient row, and keeps one campaign’s runs with campaign', async () => {
    const all = parse(await written(results, { format: 'csv' }), { columns: true }) as Array<
      Record<string, string>
    >;
    expect(all.map((row) => [row.phone, row.campaign, row.row])).toEqual([
      ['33612345601', 'spring', '33612345601'],
      ['33612345602', 'autumn', '33612345602'],
      ['33612345603', '', ''],
    ]);
    const spring = parse(await written(results, { format: 'csv', campaign: 'spring' }), {
      columns: true,
    }) as Array<Record<string, string>>;
    expect(spring.map((row) => row.phone)).toEqual(['33612345601']);
    const asJson = JSON.parse(await written(results, { format: 'json', campaign: 'autumn' }));
    expect(asJson).toEqual([
      expect.objectContaining({ phone: '33612345602', campaign: 'autumn', row: '33612345602' }),
    ]);
  });

  it('escapes a CSV cell a spreadsheet would run as a formula', async () => {
    const rows = parse(await written(results, { format: 'csv' }), { columns: true }) as Array<
      Record<string, string>
    >;
    expect(rows[0]?.comment).toBe(`'=HYPERLINK("http://x","click")`);
    expect(rows[1]?.comment).toBe(`'+33 call me`);
    expect(rows[1]?.score).toBe(`'-1`);
    expect(rows[2]?.comment).toBe('fine');
  });
});
