import { Writable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { writeResults } from '../../../src/results/write-results.ts';
import type { ConversationResult } from '../../../src/store/records.ts';

const result = (n: number, fields: Record<string, unknown>): ConversationResult => ({
  v: 1,
  location: 'paris',
  phone: `+3361234560${n}`,
  runId: `run-${n}`,
  bot: 'survey',
  botVersion: 'v1',
  startedAt: Date.parse(`2027-03-0${n}T09:00:00Z`),
  fields,
});

const results = [
  result(1, { a: '=1+1', b: '+1', c: '-1', d: '@x' }),
  result(2, { a: '\tx', b: '\rx', c: '＝1', d: 'plain' }),
  result(3, { a: 'late', b: 'call 0699887766', c: '', d: '' }),
];

/** What `replyflow results` and the dashboard's CSV write, over a store that lists `results`. */
async function csv(options: Partial<Parameters<typeof writeResults>[3]> = {}) {
  let text = '';
  const out = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  const store = {
    async *listResults() {
      yield results;
    },
    async scanConversations() {
      return { cursor: '0', records: [] };
    },
  };
  await writeResults(store, 'survey', out, { format: 'csv', ...options });
  return parse(text, { columns: true }) as Array<Record<string, string>>;
}

describe('the results CSV (replyflow results and the dashboard export)', () => {
  it("prefixes with ' every cell a spreadsheet would run: =, +, -, @, tab, carriage return", async () => {
    const rows = await csv();
    expect([rows[0]!.a, rows[0]!.b, rows[0]!.c, rows[0]!.d]).toEqual([
      "'=1+1",
      "'+1",
      "'-1",
      "'@x",
    ]);
    expect([rows[1]!.a, rows[1]!.b, rows[1]!.c, rows[1]!.d]).toEqual([
      "'\tx",
      "'\rx",
      "'＝1",
      'plain',
    ]);
    // The phone itself starts with +: escaped too, the number still whole.
    expect(rows[0]!.phone).toBe("'+33612345601");
  });

  it('masks every phone number when asked, and stops at until', async () => {
    const rows = await csv({ maskPhones: true, until: Date.parse('2027-03-03T00:00:00Z') });
    expect(rows.map((row) => row.phone)).toEqual(['336•••••601', '336•••••602']);
    const all = await csv({ maskPhones: true });
    expect(all[2]!.b).toBe('call 069••••766');
  });
});
