import { describe, expect, it } from 'vitest';
import { SeenPhones } from '../../../src/campaigns/seen-phones.ts';

describe('SeenPhones', () => {
  it('gives the first line of a number seen before, and undefined the first time', () => {
    const seen = new SeenPhones();
    expect(seen.firstLine('33612345678', 2)).toBeUndefined();
    expect(seen.firstLine('33612345679', 3)).toBeUndefined();
    expect(seen.firstLine('33612345678', 9)).toBe(2);
    expect(seen.firstLine('33612345678', 12)).toBe(2);
    expect(seen.size).toBe(2);
  });

  it('keeps every number and its line through many growths, 15-digit numbers included', () => {
    const seen = new SeenPhones();
    const count = 200_000;
    // Numbers close together and far apart: the table must not mix them up.
    const numberOf = (i: number) =>
      i % 2 === 0 ? String(33_600_000_000 + i) : String(999_999_999_999_999 - i * 7_919);
    let wronglySeen = 0;
    for (let i = 0; i < count; i++)
      if (seen.firstLine(numberOf(i), i + 2) !== undefined) wronglySeen++;
    expect(wronglySeen).toBe(0);
    expect(seen.size).toBe(count);
    const wrongLines: number[] = [];
    for (let i = 0; i < count; i++)
      if (seen.firstLine(numberOf(i), 1) !== i + 2) wrongLines.push(i);
    expect(wrongLines).toEqual([]);
    expect(seen.size).toBe(count);
    expect(seen.firstLine('33612345678', 5)).toBeUndefined();
  });

  it('works the same made for many numbers at once', () => {
    const seen = new SeenPhones(100_000);
    for (let i = 0; i < 1_000; i++) seen.firstLine(String(33_600_000_000 + i * 101), i + 2);
    expect(seen.firstLine(String(33_600_000_000 + 500 * 101), 9_999)).toBe(502);
    expect(seen.size).toBe(1_000);
  });

  it('made for a million numbers, holds them in 16 MiB without growing, each with its line', () => {
    const count = 1_000_000;
    const seen = new SeenPhones(count);
    const bytes = seen.bytes;
    expect(bytes).toBeLessThanOrEqual(16.1 * 2 ** 20);
    // French mobiles in a row, the way a file lists them.
    for (let i = 0; i < count; i++) seen.firstLine(String(33_600_000_000 + i), i + 2);
    expect(seen.size).toBe(count);
    expect(seen.bytes).toBe(bytes);
    let wrong = 0;
    for (let i = 0; i < count; i += 7)
      if (seen.firstLine(String(33_600_000_000 + i), 1) !== i + 2) wrong++;
    expect(wrong).toBe(0);
    expect(seen.size).toBe(count);
  });

  it('grows past the count it was made for (a file longer than its size said), losing nothing', () => {
    const seen = new SeenPhones(1_000);
    const before = seen.bytes;
    const count = 50_000;
    for (let i = 0; i < count; i++) {
      expect(seen.firstLine(String(447_700_000_000 + i * 13), i + 2)).toBeUndefined();
    }
    expect(seen.bytes).toBeGreaterThan(before);
    let wrong = 0;
    for (let i = 0; i < count; i++)
      if (seen.firstLine(String(447_700_000_000 + i * 13), 1) !== i + 2) wrong++;
    expect(wrong).toBe(0);
    expect(seen.size).toBe(count);
  });
});
