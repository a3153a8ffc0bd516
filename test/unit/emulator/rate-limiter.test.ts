import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../../src/emulator/rate-limiter.ts';

describe('RateLimiter (sliding one-second window)', () => {
  it('accepts the limit within a second and refuses the next until the oldest slot frees', () => {
    const limiter = new RateLimiter(3);
    expect([0, 100, 200].map((at) => limiter.take('k', at))).toEqual([0, 0, 0]);
    // The slot taken at 0 frees at 1000: 700 ms to wait at 300.
    expect(limiter.take('k', 300)).toBe(700);
    expect(limiter.take('k', 999)).toBe(1);
    expect(limiter.take('k', 1000)).toBe(0);
    // Now 100, 200 and 1000 are in the window; 100 frees at 1100.
    expect(limiter.take('k', 1050)).toBe(50);
  });

  it('does not count refused requests', () => {
    const limiter = new RateLimiter(1);
    limiter.take('k', 0);
    for (let at = 1; at < 1000; at += 100) limiter.take('k', at);
    expect(limiter.take('k', 1000)).toBe(0);
  });

  it('keeps one window per key, and none when the limit is Infinity', () => {
    const limiter = new RateLimiter(1);
    expect(limiter.take('a', 0)).toBe(0);
    expect(limiter.take('b', 0)).toBe(0);
    expect(limiter.take('a', 1)).toBeGreaterThan(0);
    limiter.perSecond = Number.POSITIVE_INFINITY;
    expect(limiter.take('a', 2)).toBe(0);
  });

  it('applies a lowered limit to the requests already in the window', () => {
    const limiter = new RateLimiter(3);
    for (const at of [0, 10, 20]) limiter.take('k', at);
    limiter.perSecond = 1;
    // All three must leave the window first; the last, taken at 20, leaves at 1020.
    expect(limiter.take('k', 30)).toBe(990);
  });
});
