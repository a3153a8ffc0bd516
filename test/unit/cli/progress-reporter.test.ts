import { describe, expect, it } from 'vitest';
import { createProgressReporter } from '../../../src/cli/progress-reporter.ts';

function setup(isTTY: boolean, totalBytes?: number, columns?: number) {
  const writes: string[] = [];
  let clock = 1_000;
  const reporter = createProgressReporter({
    output: {
      write: (text) => writes.push(text),
      isTTY,
      ...(columns !== undefined && { columns }),
    },
    now: () => clock,
    ...(totalBytes !== undefined && { totalBytes }),
  });
  return { reporter, writes, advance: (ms: number) => (clock += ms) };
}

describe('createProgressReporter', () => {
  it('redraws one terminal line at most every 250 ms, with rows, rows/s and the share of bytes', () => {
    const { reporter, writes, advance } = setup(true, 1_000_000);
    for (let rows = 1; rows <= 1_000; rows++) {
      advance(1);
      reporter.update(rows * 100, rows * 500);
    }
    // 1 s of updates, one every ms: four redraws, not a thousand.
    expect(writes).toEqual([
      '\rread 25,000 rows · 100,000 rows/s · 12%\x1b[K',
      '\rread 50,000 rows · 100,000 rows/s · 25%\x1b[K',
      '\rread 75,000 rows · 100,000 rows/s · 37%\x1b[K',
      '\rread 100,000 rows · 100,000 rows/s · 50%\x1b[K',
    ]);
  });

  it('writes a plain line every 5 s elsewhere, without a percentage when the size is unknown', () => {
    const { reporter, writes, advance } = setup(false);
    for (let second = 1; second <= 12; second++) {
      advance(1_000);
      reporter.update(second * 2_000, second * 1_000);
    }
    expect(writes).toEqual([
      'read 10,000 rows (2,000 rows/s)\n',
      'read 20,000 rows (2,000 rows/s)\n',
    ]);
  });

  it('ends with a summary line, erasing the progress line on a terminal, once', () => {
    const tty = setup(true, 100);
    tty.advance(300);
    tty.reporter.update(600, 50);
    tty.advance(2_700);
    tty.reporter.update(6_000, 100);
    tty.reporter.finish('5,880 recipients, 120 excluded');
    tty.reporter.finish('again');
    tty.reporter.update(7_000, 100);
    expect(tty.writes).toEqual([
      '\rread 600 rows · 2,000 rows/s · 50%\x1b[K',
      '\rread 6,000 rows · 2,000 rows/s · 100%\x1b[K',
      '\r\x1b[Kread 6,000 rows in 3.0 s (2,000 rows/s): 5,880 recipients, 120 excluded\n',
    ]);
    const plain = setup(false);
    plain.reporter.finish();
    expect(plain.writes).toEqual(['read 0 rows in 0.0 s\n']);
  });

  it('cuts a redrawn line to the terminal width, so that it never wraps', () => {
    const { reporter, writes, advance } = setup(true, 1_000, 20);
    advance(500);
    reporter.update(123_456, 10);
    // 19 characters: the cursor stays on the line.
    expect(writes).toEqual(['\rread 123,456 rows ·\x1b[K']);
  });
});
