import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRequestLimiter } from '../../../src/provider/request-limiter.ts';

/** Starts `count` acquisitions and reports, as the clock moves, how many went through or failed. */
function acquireMany(limiter: { acquire(): Promise<void> }, count: number) {
  const outcome = { granted: 0, refused: [] as Error[] };
  for (let i = 0; i < count; i++) {
    limiter.acquire().then(
      () => void outcome.granted++,
      (error: Error) => void outcome.refused.push(error),
    );
  }
  return outcome;
}

describe('createRequestLimiter', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('makes requests beyond the rate wait for their turn instead of failing', async () => {
    const limiter = createRequestLimiter({ perSecond: 4 });
    const outcome = acquireMany(limiter, 5);
    await vi.advanceTimersByTimeAsync(0);
    expect(outcome).toEqual({ granted: 1, refused: [] });
    await vi.advanceTimersByTimeAsync(500);
    expect(outcome.granted).toBe(3);
    await vi.advanceTimersByTimeAsync(500);
    expect(outcome).toEqual({ granted: 5, refused: [] });
  });

  it('never lets more than perSecond through in any one-second window', async () => {
    const limiter = createRequestLimiter({ perSecond: 10 });
    const grantedAt: number[] = [];
    const acquire = () => limiter.acquire().then(() => grantedAt.push(Date.now()));
    // A burst that starts late in a second: a fixed one-second window would let it through
    // twice, once before the boundary and once after.
    acquire();
    await vi.advanceTimersByTimeAsync(900);
    for (let i = 0; i < 39; i++) acquire();
    await vi.advanceTimersByTimeAsync(5000);
    expect(grantedAt).toHaveLength(40);
    for (const start of grantedAt) {
      expect(grantedAt.filter((t) => t >= start && t < start + 1000).length).toBeLessThanOrEqual(
        10,
      );
    }
  });

  it('refuses at once what does not fit in the bounded queue', async () => {
    const limiter = createRequestLimiter({ perSecond: 1, maxQueue: 2 });
    const outcome = acquireMany(limiter, 4);
    await vi.advanceTimersByTimeAsync(0);
    expect(outcome.granted).toBe(1);
    expect(outcome.refused).toHaveLength(1);
    expect(outcome.refused[0]?.message).toContain('maximum 2');
    await vi.advanceTimersByTimeAsync(2000);
    expect(outcome.granted).toBe(3);
  });

  it('spaces requests out when the rate is below one per second', async () => {
    const limiter = createRequestLimiter({ perSecond: 0.5 });
    const outcome = acquireMany(limiter, 2);
    await vi.advanceTimersByTimeAsync(1999);
    expect(outcome.granted).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome.granted).toBe(2);
  });

  it('refuses a rate that is not a positive number', () => {
    expect(() => createRequestLimiter({ perSecond: 0 })).toThrow(/positive/);
    expect(() => createRequestLimiter({ perSecond: Number.NaN })).toThrow(/positive/);
  });
});
