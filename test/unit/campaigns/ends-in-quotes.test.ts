import { describe, expect, it } from 'vitest';
import { endsInQuotes } from '../../../src/campaigns/ends-in-quotes.ts';
import { parseCsvText } from '../../../src/campaigns/parse-csv-text.ts';

/** Whether csv-parse (lenient) reads `text` then a line `x` as a row, then a row `x` alone. */
function csvParseEndsRow(text: string): boolean {
  const parsed = parseCsvText(`${text}\nx`);
  return (
    parsed.errors.length === 0 &&
    parsed.records.length === 2 &&
    JSON.stringify(parsed.records[1]) === '["x"]'
  );
}

describe('endsInQuotes', () => {
  it('tells a quoted value still open at the end of the line', () => {
    expect(endsInQuotes('33612345678,Ana', false)).toBe(false);
    expect(endsInQuotes('33612345678,"Smith, Ana"', false)).toBe(false);
    expect(endsInQuotes('33612345678,"Ana', false)).toBe(true);
    expect(endsInQuotes('33612345678,"said ""hi""', false)).toBe(true);
    expect(endsInQuotes(`33612345678,5'11"`, false)).toBe(false);
    expect(endsInQuotes('33612345678,"a" b,"c', false)).toBe(true);
    expect(endsInQuotes('75002 Paris",Lyon', true)).toBe(false);
    expect(endsInQuotes('still inside', true)).toBe(true);
    expect(endsInQuotes('', true)).toBe(true);
  });

  it('agrees with csv-parse on where a row ends, for lines of commas, quotes and text', () => {
    const pieces = ['a', ',', '"', ' ', '""', '\r'];
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const disagreements: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      let line = '';
      for (let length = 1 + random(12); length > 0; length--) line += pieces[random(pieces.length)];
      if (endsInQuotes(line, false) === csvParseEndsRow(line))
        disagreements.push(JSON.stringify(line));
      // The same line read as the continuation of a quoted value opened on the line before.
      if (endsInQuotes(line, true) === csvParseEndsRow(`x,"open\n${line}`)) {
        disagreements.push(`(inside) ${JSON.stringify(line)}`);
      }
    }
    expect(disagreements).toEqual([]);
  });
});
