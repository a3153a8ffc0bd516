import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/errors.ts';
import { createMemoryStore } from '../../../src/store/memory/create-memory-store.ts';
import type { Suppression } from '../../../src/store/suppression.ts';
import {
  importSuppressions,
  type RejectedRow,
} from '../../../src/suppressions/import-suppressions.ts';

const now = Date.parse('2026-11-25T12:00:00Z');

/** The CSV in small chunks, cut anywhere (a row may span two). */
const chunked = (text: string, size = 7) =>
  Readable.from(
    Array.from({ length: Math.ceil(text.length / size) }, (_, i) =>
      Buffer.from(text.slice(i * size, i * size + size)),
    ),
  );

async function imported(text: string, options: { defaultCountry?: string; reason?: string } = {}) {
  const store = createMemoryStore();
  const rejected: RejectedRow[] = [];
  const summary = await importSuppressions(store, chunked(text), {
    location: 'paris',
    source: 'import',
    now,
    batchSize: 2,
    onRejected: (row) => rejected.push(row),
    ...options,
  });
  const entries: Suppression[] = [];
  for await (const batch of store.listSuppressions('paris')) entries.push(...batch);
  entries.sort((a, b) => (a.phone < b.phone ? -1 : 1));
  return { summary, rejected, entries };
}

describe('importSuppressions', () => {
  it('reads a BOM, the header in any case, national numbers with the default country, quoted reasons and ISO times', async () => {
    const csv =
      '\ufeff Phone ,Reason,AT,extra\n' +
      '06 12 34 56 78,"unsubscribed, by mail",2024-03-01T09:30:00Z,z\n' +
      '+44 7700 900123,,,\n' +
      '\n' +
      '0033698765432,complaint\n';
    const { summary, rejected, entries } = await imported(csv, {
      defaultCountry: 'FR',
      reason: 'old CRM',
    });
    expect(summary).toEqual({ imported: 3, existing: 0, rejected: 0 });
    expect(rejected).toEqual([]);
    expect(entries).toEqual([
      {
        phone: '33612345678',
        at: Date.parse('2024-03-01T09:30:00Z'),
        reason: 'unsubscribed, by mail',
        source: 'import',
      },
      { phone: '33698765432', at: now, reason: 'complaint', source: 'import' },
      { phone: '447700900123', at: now, reason: 'old CRM', source: 'import' },
    ]);
  });

  it('tells each bad row with its line, the number masked, and imports the others; a phone twice counts once', async () => {
    const csv = [
      'phone,reason,at',
      '+33612345678,a,',
      '0612345679,b,',
      ',c,',
      '+33 6 12 34 56 80,d,yesterday',
      '+33 6 12 34 56 81,e,2999-01-01T00:00:00Z',
      `+33 6 12 34 56 82,${'r'.repeat(201)},`,
      '+33 6 12 34 56 78,again,',
    ].join('\r\n');
    const { summary, rejected, entries } = await imported(csv);
    expect(summary).toEqual({ imported: 1, existing: 1, rejected: 5 });
    expect(rejected).toEqual([
      {
        line: 3,
        reason:
          'phone 061••••679 is not a phone number (write it with its country prefix: +33 6 12 34 56 78)',
      },
      { line: 4, reason: 'no phone' },
      { line: 5, reason: 'at is not an ISO 8601 date such as 2026-03-01T09:30:00Z' },
      { line: 6, reason: 'at is in the future' },
      { line: 7, reason: 'reason is longer than 200 characters' },
    ]);
    expect(JSON.stringify(rejected)).not.toMatch(/\d{6}/);
    expect(entries.map((e) => [e.phone, e.reason])).toEqual([['33612345678', 'a']]);
  });

  it('reads UTF-16, little or big endian, after its byte order mark, as a campaign file is read', async () => {
    const csv = '\ufeffphone,reason\r\n+33612345678,envoyé STOP\r\n+33612345679,\r\n';
    const le = Buffer.from(csv, 'utf16le');
    for (const bytes of [le, Buffer.from(le).swap16()]) {
      const store = createMemoryStore();
      // Cut after the mark's first byte and within a character: an upload may be cut anywhere.
      const input = Readable.from([bytes.subarray(0, 1), bytes.subarray(1, 6), bytes.subarray(6)]);
      const summary = await importSuppressions(store, input, {
        location: 'paris',
        source: 'import',
        now,
      });
      expect(summary).toEqual({ imported: 2, existing: 0, rejected: 0 });
      const entries: Suppression[] = [];
      for await (const batch of store.listSuppressions('paris')) entries.push(...batch);
      expect(entries.map((e) => [e.phone, e.reason]).sort()).toEqual([
        ['33612345678', 'envoyé STOP'],
        ['33612345679', undefined],
      ]);
    }
  });

  it('refuses a file with no phone column before writing anything', async () => {
    const result = imported('name,reason\n+33612345678,a\n');
    await expect(result).rejects.toThrow(ValidationError);
    await expect(result).rejects.toThrow(/no 'phone' column/);
  });

  it('stops at a quote left open, saying after which line, with the rows up to it imported', async () => {
    const store = createMemoryStore();
    const good = Array.from({ length: 100 }, (_, i) => `+336123${String(i).padStart(5, '0')}`);
    const csv = `phone\n${good.join('\n')}\n"+33612399999\n${'+33612345680\n'.repeat(6_000)}`;
    const error = await importSuppressions(store, chunked(csv, 1_024), {
      location: 'paris',
      source: 'api',
      now,
    }).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(ValidationError);
    const match =
      /^the CSV cannot be read after line (\d+) \(a row over 64 KiB, most likely a quote left open\); the rows up to it are imported/.exec(
        (error as Error).message,
      );
    expect(match).not.toBeNull();
    const entries: Suppression[] = [];
    for await (const batch of store.listSuppressions('paris')) entries.push(...batch);
    expect(entries.length).toBeGreaterThan(0);
    expect(entries).toHaveLength(Number(match![1]) - 1);
  });
});
