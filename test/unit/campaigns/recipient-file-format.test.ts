import { describe, expect, it } from 'vitest';
import { recipientFileFormat } from '../../../src/campaigns/recipient-file-format.ts';
import { ConfigError } from '../../../src/errors.ts';

describe('recipientFileFormat', () => {
  it('tells the format from the file name, and lets the format given win', () => {
    expect(recipientFileFormat({ fileName: 'december.jsonl' })).toBe('jsonl');
    expect(recipientFileFormat({ fileName: 'DECEMBER.NDJSON' })).toBe('jsonl');
    expect(recipientFileFormat({ fileName: '/tmp/list.v2/december.csv' })).toBe('csv');
    expect(recipientFileFormat({ fileName: 'export.txt' })).toBe('csv');
    expect(recipientFileFormat({ fileName: 'december' })).toBe('csv');
    expect(recipientFileFormat({})).toBe('csv');
    expect(recipientFileFormat({ fileName: 'december.csv', format: 'jsonl' })).toBe('jsonl');
  });

  it('refuses an extension it does not read, and a format it does not know', () => {
    expect(() => recipientFileFormat({ fileName: 'december.xlsx' })).toThrow(ConfigError);
    expect(() => recipientFileFormat({ fileName: 'december.xlsx' })).toThrow(
      "cannot tell the format of 'december.xlsx': use a .csv or .jsonl file, or give the format (csv or jsonl)",
    );
    expect(() => recipientFileFormat({ format: 'xml' })).toThrow(
      "format 'xml' is not csv or jsonl",
    );
  });
});
