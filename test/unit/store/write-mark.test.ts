import { describe, expect, it } from 'vitest';
import { joinValueLines, valueLines } from '../../../src/store/redis/conversation-value.ts';
import { builtOn, newWriteMark } from '../../../src/store/redis/write-mark.ts';

const value = '3\n[1,"e-1"]\n\n[]\n{"v":1,"runId":"run-1"}\n#1\ti[1,"YES","asked"]';

describe('write marks in a conversation value', () => {
  it('reads a marked value as the same lines, and writes the mark first', () => {
    const marked = `~m1\n${value}`;
    const lines = valueLines(marked);
    expect(lines).toEqual({ ...valueLines(value), mark: 'm1' });
    expect(lines?.seq).toBe(3);
    expect(joinValueLines(lines!)).toBe(marked);
    expect(joinValueLines({ ...lines!, mark: '' })).toBe(value);
  });

  it('says which layout it expected of a value cut short after its mark', () => {
    expect(() => valueLines('~m1')).toThrow(/not in the layout of this release/);
    expect(() => valueLines('~m1\n3\n[]')).toThrow(/not in the layout of this release/);
  });

  it('makes a new mark each time, of characters that need no escape', () => {
    const marks = Array.from({ length: 1000 }, newWriteMark);
    expect(new Set(marks).size).toBe(1000);
    for (const mark of marks) expect(mark).toMatch(/^[A-Za-z0-9_-]{9,}$/);
  });

  it('checks a marked value by its mark line alone, any other by the whole of it', () => {
    expect(builtOn(`~m1\n${value}`)).toBe('~m1\n');
    expect(builtOn(value)).toBe(value);
    expect(builtOn('')).toBe('');
  });
});
