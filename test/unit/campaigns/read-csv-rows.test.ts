import { describe, expect, it } from 'vitest';
import { type ReadCsvRowsOptions, readCsvRows } from '../../../src/campaigns/read-csv-rows.ts';
import { readLines } from '../../../src/campaigns/read-lines.ts';
import type { SourceRow } from '../../../src/campaigns/source-row.ts';
import { ValidationError } from '../../../src/errors.ts';

/** The file's bytes, cut into chunks of `size` bytes (a cut may fall inside a character). */
async function* bytes(text: string | Uint8Array, size = 1 << 16) {
  const all = typeof text === 'string' ? Buffer.from(text) : Buffer.from(text);
  for (let i = 0; i < all.length; i += size) yield all.subarray(i, i + size);
}

async function rows(
  text: string | Uint8Array,
  options: ReadCsvRowsOptions & { chunk?: number; maxLength?: number } = {},
): Promise<SourceRow[]> {
  const found: SourceRow[] = [];
  const lines = readLines(bytes(text, options.chunk), options.maxLength);
  for await (const batch of readCsvRows(lines, options)) found.push(...batch);
  // Plain objects, so that a failure prints them plainly.
  return found.map((row) =>
    'values' in row ? { line: row.line, values: { ...row.values } } : row,
  );
}

async function refusal(text: string, options: ReadCsvRowsOptions = {}): Promise<string> {
  try {
    await rows(text, options);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as Error).message;
  }
  throw new Error('the file was not refused');
}

describe('readCsvRows', () => {
  it('gives each row its values by column, with empty cells absent', async () => {
    expect(
      await rows('phone,name,at\n33612345678,Ana,2027-12-06\n33612345679,,2027-12-07\n'),
    ).toEqual([
      { line: 2, values: { phone: '33612345678', name: 'Ana', at: '2027-12-06' } },
      { line: 3, values: { phone: '33612345679', at: '2027-12-07' } },
    ]);
  });

  it('drops a byte order mark and reads CRLF line ends, with or without a last line end', async () => {
    const bom = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from('phone,name\r\n33612345678,Ana\r\n33612345679,Bob'),
    ]);
    const expected = [
      { line: 2, values: { phone: '33612345678', name: 'Ana' } },
      { line: 3, values: { phone: '33612345679', name: 'Bob' } },
    ];
    expect(await rows(bom)).toEqual(expected);
    // A byte at a time: the mark, the CR and the LF each arrive alone.
    expect(await rows(bom, { chunk: 1 })).toEqual(expected);
  });

  it('reads quoted commas, doubled quotes, quotes inside a plain value, and UTF-8 cut between chunks', async () => {
    const text =
      'phone,name,note\n' +
      '33612345678,"Smith, Ana","said ""yes"""\n' +
      `33612345679,José,5'11" tall\n`;
    const expected = [
      { line: 2, values: { phone: '33612345678', name: 'Smith, Ana', note: 'said "yes"' } },
      { line: 3, values: { phone: '33612345679', name: 'José', note: `5'11" tall` } },
    ];
    for (const chunk of [1, 2, 3, 7, 1 << 16])
      expect(await rows(text, { chunk })).toEqual(expected);
  });

  it('reads a quoted value over several lines as one row, numbered by its first line', async () => {
    const text = 'phone,address\n33612345678,"1 rue de la Paix\n75002 Paris"\n33612345679,Lyon\n';
    expect(await rows(text)).toEqual([
      { line: 2, values: { phone: '33612345678', address: '1 rue de la Paix\n75002 Paris' } },
      { line: 4, values: { phone: '33612345679', address: 'Lyon' } },
    ]);
  });

  it('reports a row with the wrong number of values at its line, and reads on', async () => {
    const text =
      'phone,name\n33612345678,Ana\n33612345679,Smith, Bob\n33612345670\n33612345671,Carl\n';
    expect(await rows(text)).toEqual([
      { line: 2, values: { phone: '33612345678', name: 'Ana' } },
      {
        line: 3,
        problem:
          'the row has 3 values where the header (line 1) names 2 columns: a value holding a comma must be in double quotes',
      },
      { line: 4, problem: expect.stringContaining('the row has 1 values where') },
      { line: 5, values: { phone: '33612345671', name: 'Carl' } },
    ]);
  });

  it('costs a quote left open its own line only, in the middle of the file or at its end', async () => {
    const text =
      'phone,name,at\n' +
      '33612345678,Ana,2027-12-06\n' +
      '33612345679,"Bob,2027-12-06\n' +
      '33612345670,Carl,2027-12-06\n' +
      '33612345671,"Smith, Dan",2027-12-06\n' +
      '33612345672,Eve,2027-12-06\n' +
      '33612345673,"Fay,2027-12-06\n';
    const found = await rows(text);
    expect(found.map((row) => [row.line, 'problem' in row ? 'problem' : row.values.name])).toEqual([
      [2, 'Ana'],
      [3, 'problem'],
      [4, 'Carl'],
      [5, 'Smith, Dan'],
      [6, 'Eve'],
      [7, 'problem'],
    ]);
    expect(found[1]).toEqual({
      line: 3,
      problem:
        'the row opens a quoted value that runs to line 5 and does not read as one row: is a quote missing?',
    });
    expect(found[5]).toEqual({
      line: 7,
      problem:
        'the row opens a quoted value not closed by the end of the file: is a quote missing?',
    });
  });

  it('gives up on a quoted value after maxRowLines lines and reads those lines again', async () => {
    const lines = ['phone,name', '33612345678,"Ana'];
    for (let i = 0; i < 5; i++) lines.push(`3361234567${i},Row${i}`);
    const found = await rows(`${lines.join('\n')}\n`, { maxRowLines: 3 });
    expect(found[0]).toEqual({
      line: 2,
      problem: 'the row opens a quoted value not closed within 3 lines: is a quote missing?',
    });
    expect(found.slice(1).map((row) => row.line)).toEqual([3, 4, 5, 6, 7]);
    expect(found.slice(1).every((row) => 'values' in row)).toBe(true);
  });

  it('refuses a line longer than the limit as a row, without keeping it, and reads on', async () => {
    const text = `phone,name\n33612345678,${'x'.repeat(200)}\n33612345679,Bob\n`;
    expect(await rows(text, { maxLength: 100, chunk: 16 })).toEqual([
      { line: 2, problem: 'the line is too long to be a row' },
      { line: 3, values: { phone: '33612345679', name: 'Bob' } },
    ]);
  });

  it('skips blank lines without counting them as rows, and keeps the line numbers', async () => {
    expect(await rows('phone\n\n33612345678\n\n\n33612345679\n\n')).toEqual([
      { line: 3, values: { phone: '33612345678' } },
      { line: 6, values: { phone: '33612345679' } },
    ]);
  });

  it('trims the column names and keeps a column named __proto__ as a value like any other', async () => {
    const [row] = await rows(' phone , __proto__\n33612345678,x\n');
    // JSON.parse makes __proto__ an own property, as the row must have it.
    expect(row).toEqual({ line: 2, values: JSON.parse('{"phone":"33612345678","__proto__":"x"}') });
  });

  it('refuses a file whose header cannot be used, before any row', async () => {
    expect(await refusal('')).toBe(
      'the file has no header: its first line must name the columns, such as phone,name',
    );
    expect(await refusal('\n\n')).toContain('the file has no header');
    expect(
      await refusal('mobile,name\n33612345678,Ana\n', { requiredColumns: ['phone', 'at'] }),
    ).toBe("the header (line 1) has no column 'phone', 'at'; its columns are 'mobile', 'name'");
    expect(await refusal('phone,name,phone\n')).toBe("the header (line 1) names 'phone' twice");
    expect(await refusal('phone,,name\n')).toBe(
      'the header (line 1) has no name for column 2: name it or remove it',
    );
    expect(await refusal('phone,"name\n336,Ana\n')).toBe(
      'the header, line 1, cannot be read: the row opens a quoted value not closed by the end of the file: is a quote missing?',
    );
  });
});
