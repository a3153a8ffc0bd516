import { describe, expect, it } from 'vitest';
import { createCustomColumnsCache } from '../../../src/provider/custom-columns-cache.ts';
import type { CustomColumn } from '../../../src/provider/schemas/custom-column.ts';

const column: CustomColumn = {
  id: 3,
  venueId: 1,
  userLabel: 'amount_due',
  type: 'DOUBLE',
  created_at: '2024-05-15T00:00:00.000Z',
  updated_at: '2024-05-15T00:00:00.000Z',
  deleted_at: null,
};

function setup(ttlMs = 1000) {
  let now = 0;
  let fetches = 0;
  let failNext = false;
  const cache = createCustomColumnsCache({
    ttlMs,
    now: () => now,
    fetch: async () => {
      fetches++;
      if (failNext) {
        failNext = false;
        throw new Error('service down');
      }
      return [column];
    },
  });
  return {
    cache,
    fetches: () => fetches,
    advance: (ms: number) => {
      now += ms;
    },
    failNextFetch: () => {
      failNext = true;
    },
  };
}

describe('createCustomColumnsCache', () => {
  it('fetches once per TTL', async () => {
    const t = setup(1000);
    expect(await t.cache.get()).toEqual({ columns: [column], fetched: true });
    t.advance(999);
    expect(await t.cache.get()).toEqual({ columns: [column], fetched: false });
    expect(t.fetches()).toBe(1);
    t.advance(1);
    expect((await t.cache.get()).fetched).toBe(true);
    expect(t.fetches()).toBe(2);
  });

  it('shares one fetch between concurrent callers', async () => {
    const t = setup();
    await Promise.all([t.cache.get(), t.cache.get(), t.cache.refresh()]);
    expect(t.fetches()).toBe(1);
  });

  it('does not cache a failure', async () => {
    const t = setup();
    t.failNextFetch();
    await expect(t.cache.get()).rejects.toThrow('service down');
    expect((await t.cache.get()).columns).toEqual([column]);
    expect(t.fetches()).toBe(2);
  });
});
