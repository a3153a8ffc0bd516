import { describe, expect, it } from 'vitest';
import { createImportSummary } from '../../../src/campaigns/import-summary.ts';
import type { Recipient } from '../../../src/campaigns/read-recipients.ts';

const recipient = (line: number, at: string, timeZone = 'Europe/Paris'): Recipient => ({
  line,
  phone: `3361234567${line % 10}`,
  input: { name: `Row ${line}` },
  at: Date.parse(at),
  timeZone,
});

describe('createImportSummary', () => {
  it('counts rows, accepted and excluded by reason, opted_out included', () => {
    const builder = createImportSummary();
    builder.add(recipient(2, '2027-12-05T08:00:00Z'));
    builder.add({ line: 3, excluded: 'bad_phone', message: 'no phone number' });
    builder.add({ line: 4, excluded: 'duplicate', message: '336•••••678 is already on line 2' });
    builder.add({ line: 5, excluded: 'opted_out', message: 'opted out' });
    builder.add({ line: 6, excluded: 'bad_phone', message: 'no phone number' });
    const summary = builder.summary();
    expect(summary).toMatchObject({ rows: 5, accepted: 1, excluded: 4 });
    expect(summary.byReason).toEqual({
      bad_phone: 2,
      bad_input: 0,
      bad_date: 0,
      past_due: 0,
      duplicate: 1,
      opted_out: 1,
    });
  });

  it('keeps the first rows with their send time in their own time zone, and no more', () => {
    const builder = createImportSummary({ previewRows: 3 });
    builder.add(recipient(2, '2027-12-05T08:00:00Z'));
    builder.add({ line: 3, excluded: 'bad_date', message: "no date in column 'at'" });
    builder.add(recipient(4, '2027-12-05T14:00:00Z', 'America/New_York'));
    builder.add(recipient(5, '2027-12-04T08:00:00Z'));
    const summary = builder.summary();
    expect(summary.preview).toEqual([
      {
        line: 2,
        phone: '33612345672',
        at: '2027-12-05T09:00:00+01:00',
        timeZone: 'Europe/Paris',
        input: { name: 'Row 2' },
      },
      { line: 3, excluded: 'bad_date', message: "no date in column 'at'" },
      {
        line: 4,
        phone: '33612345674',
        at: '2027-12-05T09:00:00-05:00',
        timeZone: 'America/New_York',
        input: { name: 'Row 4' },
      },
    ]);
    // The span covers every accepted row, not only those shown.
    expect(summary.firstSendAt).toBe(Date.parse('2027-12-04T08:00:00Z'));
    expect(summary.lastSendAt).toBe(Date.parse('2027-12-05T14:00:00Z'));
  });

  it('gives a copy: rows added later do not change a summary already taken', () => {
    const builder = createImportSummary();
    const before = builder.summary();
    builder.add(recipient(2, '2027-12-05T08:00:00Z'));
    builder.add({ line: 3, excluded: 'past_due', message: 'was due …' });
    expect(before).toEqual({
      rows: 0,
      accepted: 0,
      excluded: 0,
      byReason: {
        bad_phone: 0,
        bad_input: 0,
        bad_date: 0,
        past_due: 0,
        duplicate: 0,
        opted_out: 0,
      },
      preview: [],
      firstSendAt: undefined,
      lastSendAt: undefined,
    });
    expect(builder.summary().rows).toBe(2);
  });
});
