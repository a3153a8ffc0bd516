import { describe, expect, it } from 'vitest';
import { parseLimit } from '../../../src/webhook/create-webhook-fast-path.ts';

describe('parseLimit (the webhook fast path reads body-parser’s limit notation)', () => {
  it('reads bytes, kb, mb and gb as body-parser does (1 kb = 1,024 bytes)', () => {
    expect(parseLimit('256kb')).toBe(262_144);
    expect(parseLimit('1mb')).toBe(1_048_576);
    expect(parseLimit('1.5kb')).toBe(1_536);
    expect(parseLimit('2GB')).toBe(2 * 1024 ** 3);
    expect(parseLimit('100')).toBe(100);
    expect(parseLimit(' 10 b ')).toBe(10);
  });

  it('answers undefined for what it cannot read, which leaves every request to Express', () => {
    for (const bad of ['', 'kb', 'ten kb', '1tb', '-1kb', '1e3']) {
      expect(parseLimit(bad), bad).toBeUndefined();
    }
  });
});
