import { Writable } from 'node:stream';
import { expect } from 'vitest';

/**
 * Every log line a test produces, in one place: the in-process logger writes to `stream`
 * (`startReplyLoop({ logStream })`), child processes' output is added line by line (`add`).
 * `expectNoFullPhoneNumber` then scans them all.
 */
export class LogCapture {
  readonly lines: string[] = [];
  readonly stream = new Writable({
    write: (chunk: Buffer, _encoding, done) => {
      for (const line of String(chunk).split('\n')) this.add(line);
      done();
    },
  });

  add(line: string): void {
    if (line !== '') this.lines.push(line);
  }

  /** The lines in which one of `phones` appears in full (digit runs of any script compared). */
  linesWithFullNumbers(phones: Iterable<string>): string[] {
    const wanted = new Set(phones);
    const lengths = new Set([...wanted].map((phone) => Array.from(phone).length));
    return this.lines.filter((line) => {
      for (const [run] of line.matchAll(/\p{Nd}{6,}/gu)) {
        const digits = Array.from(run);
        for (const length of lengths) {
          for (let i = 0; i + length <= digits.length; i++) {
            if (wanted.has(digits.slice(i, i + length).join(''))) return true;
          }
        }
      }
      return false;
    });
  }
}

/** Fails, showing the first offending lines, when any captured line holds one of `phones` in full. */
export function expectNoFullPhoneNumber(capture: LogCapture, phones: Iterable<string>): void {
  expect(capture.lines.length, 'log lines captured').toBeGreaterThan(0);
  const leaks = capture.linesWithFullNumbers(phones);
  expect(
    { leaks: leaks.length, first: leaks.slice(0, 5) },
    `${capture.lines.length} log lines scanned`,
  ).toEqual({ leaks: 0, first: [] });
}
