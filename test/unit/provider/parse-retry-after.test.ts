import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../../src/provider/parse-retry-after.ts';

const now = Date.parse('2026-10-21T07:27:30Z');

describe('parseRetryAfter', () => {
  it('reads delay-seconds', () => {
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('1.5', now)).toBe(1500);
  });

  it('reads an HTTP date as the time left until then, never negative', () => {
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:28:00 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:00:00 GMT', now)).toBe(0);
  });

  it('takes the first of repeated headers', () => {
    expect(parseRetryAfter(['3', '9'], now)).toBe(3000);
  });

  it('gives undefined for a missing or unreadable header, so the caller uses its own backoff', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
  });
});
