import { describe, expect, it } from 'vitest';
import { readLines, type TextLine } from '../../../src/campaigns/read-lines.ts';

async function lines(chunks: Array<string | Uint8Array>, maxLength?: number): Promise<TextLine[]> {
  async function* source() {
    yield* chunks;
  }
  const found: TextLine[] = [];
  for await (const batch of readLines(source(), maxLength)) found.push(...batch);
  return found;
}

describe('readLines', () => {
  it('numbers lines from 1, without their LF or CRLF, the last one with or without a line end', async () => {
    expect(await lines(['a\r\nb\n', 'c'])).toEqual([
      { number: 1, text: 'a' },
      { number: 2, text: 'b' },
      { number: 3, text: 'c' },
    ]);
    expect(await lines(['a\n\n'])).toEqual([
      { number: 1, text: 'a' },
      { number: 2, text: '' },
    ]);
    expect(await lines([])).toEqual([]);
  });

  it('drops a byte order mark from bytes and from text, and joins a character cut between chunks', async () => {
    const bytes = Buffer.from('\ufeffphone\nJosé\n');
    const cut = bytes.indexOf(0xc3) + 1;
    expect(
      await lines([bytes.subarray(0, 2), bytes.subarray(2, cut), bytes.subarray(cut)]),
    ).toEqual([
      { number: 1, text: 'phone' },
      { number: 2, text: 'José' },
    ]);
    expect(await lines(['\ufeffphone\n'])).toEqual([{ number: 1, text: 'phone' }]);
    // Only at the start of the file.
    expect(await lines(['a\n', '\ufeffb\n'])).toEqual([
      { number: 1, text: 'a' },
      { number: 2, text: '\ufeffb' },
    ]);
  });

  it('reads UTF-16 (little or big endian) when the bytes start with its byte order mark', async () => {
    const text = '\ufeffphone,name\r\n+33612345678,José\n';
    const le = Buffer.from(text, 'utf16le');
    const be = Buffer.from(le).swap16();
    const expected = [
      { number: 1, text: 'phone,name' },
      { number: 2, text: '+33612345678,José' },
    ];
    expect(await lines([le])).toEqual(expected);
    // A code unit cut between two chunks is joined.
    expect(await lines([le.subarray(0, 7), le.subarray(7)])).toEqual(expected);
    expect(await lines([be])).toEqual(expected);
    // The mark itself cut between chunks (an HTTP upload can be cut anywhere), or after an
    // empty chunk.
    expect(await lines([le.subarray(0, 1), le.subarray(1)])).toEqual(expected);
    expect(
      await lines([new Uint8Array(0), be.subarray(0, 1), be.subarray(1, 3), be.subarray(3)]),
    ).toEqual(expected);
    // A file of one byte is UTF-8.
    expect(await lines([Buffer.from('a')])).toEqual([{ number: 1, text: 'a' }]);
  });

  it('yields batches of at most 128 lines, whatever the chunk size', async () => {
    async function* source() {
      yield `${Array.from({ length: 300 }, (_, i) => `line ${i + 1}`).join('\n')}\n`;
    }
    const sizes: number[] = [];
    const numbers: number[] = [];
    for await (const batch of readLines(source())) {
      sizes.push(batch.length);
      numbers.push(...batch.map((line) => line.number));
    }
    expect(sizes).toEqual([128, 128, 44]);
    expect(numbers).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
  });

  it('gives a line longer than the limit no text, over any number of chunks, and goes on', async () => {
    expect(await lines(['ok\nxxxx', 'xxxx', 'xx\nfine\n', 'yyyyyyyyyy'], 5)).toEqual([
      { number: 1, text: 'ok' },
      { number: 2, text: undefined },
      { number: 3, text: 'fine' },
      { number: 4, text: undefined },
    ]);
  });

  it('reads a chunk larger than a piece (8 KiB) alike: a character or a CRLF cut at a piece end is joined', async () => {
    // Line 1 ends so that 'é' (2 bytes) straddles byte 8192, line 2 so that its CRLF does at 16384.
    const first = `${'a'.repeat(8_191)}é\r\n`;
    const firstBytes = Buffer.byteLength(first);
    const second = `${'b'.repeat(16_383 - firstBytes)}\r\n`;
    const text = `${first}${second}last`;
    const bytes = Buffer.from(text);
    expect(bytes.subarray(8_191, 8_193).toString()).toBe('é');
    expect(bytes.subarray(16_383, 16_385).toString()).toBe('\r\n');
    const expected = [
      { number: 1, text: first.slice(0, -2) },
      { number: 2, text: second.slice(0, -2) },
      { number: 3, text: 'last' },
    ];
    expect(await lines([bytes])).toEqual(expected);
    expect(await lines([text])).toEqual(expected);
  });
});
