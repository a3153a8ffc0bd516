import { afterAll, describe, expect, it } from 'vitest';
import { createRedisStore } from '../../../src/store/redis/create-redis-store.ts';
import { storeKeys } from '../../../src/store/redis/keys.ts';
import { storeLimits } from '../../../src/store/store-limits.ts';
import { connectTestRedis, randomPrefix } from '../../support/redis.ts';
import { phonesInDistinctPartitions, statusItem, t0 } from './contract/fixtures.ts';

/**
 * Status notifications for sms replyflow never sent (a dashboard campaign on the same location,
 * forged ones) must never fill the store: their records are kept briefly, and at most
 * `storeLimits.unknownMessagesCap` of them per partition (issue 14).
 */
describe('statuses of unknown sms on Redis', () => {
  const redis = connectTestRedis();
  afterAll(() => redis.quit());

  it('are kept an hour at most, and no more than the cap per partition', async () => {
    const prefix = randomPrefix('unknown');
    const store = createRedisStore({ redis, prefix, onError: () => {} });
    const [phone = ''] = phonesInDistinctPartitions(store, 1);
    const extra = 25;
    const count = storeLimits.unknownMessagesCap + extra;
    // A flood: each status of its own unknown sms, in batches of one notification each.
    for (let i = 0; i < count; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, count - i) }, (_, j) =>
          store.ingest(
            `n-flood-${i + j}`,
            [statusItem(`s-${i + j}`, phone, `ghost-${i + j}`, 'delivered')],
            t0 + i + j,
          ),
        ),
      );
    }
    const keys = storeKeys(prefix, store.partitions).conversation({ location: 'paris', phone });
    const records = await redis.keys(`${keys.messagePrefix}ghost-*`);
    expect(records.length).toBeLessThanOrEqual(storeLimits.unknownMessagesCap);
    expect(records.length).toBeGreaterThan(storeLimits.unknownMessagesCap - extra);
    // The oldest went first: the first statuses' records are gone, the last ones are there.
    expect(await store.getMessage(phone, 'ghost-0')).toBeNull();
    expect(await store.getMessage(phone, `ghost-${count - 1}`)).toMatchObject({
      status: 'delivered',
    });
    const ttls = await Promise.all(records.slice(0, 50).map((key) => redis.pttl(key)));
    for (const ttl of ttls) {
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(storeLimits.unknownMessageTtlMs);
    }
    expect(await redis.zcard(keys.unknownMessages)).toBeLessThanOrEqual(
      storeLimits.unknownMessagesCap,
    );
    const all = await redis.keys(`${prefix}*`);
    await redis.unlink(...all);
    await store.close();
  });
});
