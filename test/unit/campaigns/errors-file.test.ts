import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openErrorsFile } from '../../../src/campaigns/errors-file.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replyflow-errors-file-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('openErrorsFile', () => {
  it('writes line,reason,message rows that read back as written, commas, quotes and lines included', async () => {
    const path = join(dir, 'errors.csv');
    const errors = await openErrorsFile(path);
    await errors.write({
      line: 3,
      excluded: 'bad_date',
      message: "'06/12/2027' in column 'at' is not a date: write 2027-12-06, …",
    });
    await errors.write({
      line: 7,
      excluded: 'bad_input',
      message: 'input.name: said "no"\nand left',
    });
    await errors.write({ line: 9, excluded: 'opted_out', message: '=HYPERLINK("x")' });
    expect(errors.rows).toBe(3);
    await errors.close();
    const text = await readFile(path, 'utf8');
    expect(text.split('\n')[0]).toBe('line,reason,message');
    expect(parse(text, { columns: true })).toEqual([
      {
        line: '3',
        reason: 'bad_date',
        message: "'06/12/2027' in column 'at' is not a date: write 2027-12-06, …",
      },
      { line: '7', reason: 'bad_input', message: 'input.name: said "no"\nand left' },
      // A formula is escaped, so that a spreadsheet shows it rather than runs it.
      { line: '9', reason: 'opted_out', message: `'=HYPERLINK("x")` },
    ]);
  });

  it('writes many rows through backpressure, in order', async () => {
    const path = join(dir, 'many.csv');
    const errors = await openErrorsFile(path);
    for (let line = 2; line < 50_002; line++) {
      await errors.write({
        line,
        excluded: 'bad_phone',
        message: `no phone number in column 'phone' ${'x'.repeat(40)}`,
      });
    }
    await errors.close();
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(50_001);
    expect(lines[1]!.startsWith('2,bad_phone,')).toBe(true);
    expect(lines.at(-1)!.startsWith('50001,bad_phone,')).toBe(true);
  });

  it('writes a header alone when no row was excluded, and refuses a path it cannot open', async () => {
    const path = join(dir, 'none.csv');
    const errors = await openErrorsFile(path);
    await errors.close();
    expect(await readFile(path, 'utf8')).toBe('line,reason,message\n');
    await expect(openErrorsFile(join(dir, 'missing', 'errors.csv'))).rejects.toThrow(/ENOENT/);
  });
});
