import type { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { TimerEvent } from '../../../src/store/records.ts';
import { createRedisStore } from '../../../src/store/redis/create-redis-store.ts';
import type { Store } from '../../../src/store/store.ts';
import { connectTestRedis, randomPrefix } from '../../support/redis.ts';
import { commitTimers, keyOf, t0, timerRecord } from './contract/fixtures.ts';

/** Claims every due timer of every partition, `limit` at a time, as a scheduler loop would. */
async function claimAllDue(store: Store, now: number, limit: number): Promise<number> {
  let total = 0;
  for (let partition = 0; partition < store.partitions; partition++) {
    for (;;) {
      const moved = await store.claimDueTimers(partition, now, limit);
      total += moved;
      if (moved < limit) break;
    }
  }
  return total;
}

/** Phones `336…` numbered from `first`, one per conversation. */
const phones = (count: number, first = 0) =>
  Array.from({ length: count }, (_, n) => `3365${String(first + n).padStart(7, '0')}`);

describe('redis durable timers', () => {
  // Two connections, so the two stores' calls really interleave on the server.
  const redisA = connectTestRedis();
  const redisB = connectTestRedis();
  let prefix = '';
  afterEach(async () => {
    const keys = await redisA.keys(`${prefix}*`);
    if (keys.length > 0) await redisA.unlink(...keys);
  });
  afterAll(async () => {
    await redisA.quit();
    await redisB.quit();
  });
  const storeOn = (redis: Redis) => createRedisStore({ redis, prefix, partitions: 16 });

  it('fires each timer once when two processes claim the same partitions concurrently', async () => {
    prefix = randomPrefix('timers');
    const [a, b] = [storeOn(redisA), storeOn(redisB)];
    const conversations = phones(20);
    for (const phone of conversations) {
      const timers = [1, 2, 3, 4, 5].map((n) =>
        timerRecord(phone, `t${n}`, t0 + n, undefined, `run-${phone}`),
      );
      await commitTimers(a, phone, { set: timers, cancel: [] });
    }

    const claimers = [a, b, a, b].map(async (store) => {
      let moved = 0;
      // Small batches and several rounds, so the claimers overlap on every partition.
      for (let round = 0; round < 3; round++) moved += await claimAllDue(store, t0 + 10, 3);
      return moved;
    });
    const moved = await Promise.all(claimers);

    expect(moved.reduce((sum, n) => sum + n, 0)).toBe(100);
    expect(moved.filter((n) => n > 0).length).toBeGreaterThan(1);
    for (const phone of conversations) {
      const events = (await b.pendingEvents(keyOf(phone))) as TimerEvent[];
      expect(events.map((e) => e.timerId)).toEqual(
        [1, 2, 3, 4, 5].map((n) => `run-${phone}:t${n}`),
      );
    }
    await Promise.all([a.close(), b.close()]);
  });

  it('moves 10,000 timers due at the same time into their mailboxes exactly once, 500 at a time', async () => {
    prefix = randomPrefix('timers');
    const store = storeOn(redisA);
    const conversations = phones(200, 100);
    const perConversation = 50;
    const due = t0 + 60_000;
    // One commit per conversation sets its timers, twenty conversations at a time.
    for (let i = 0; i < conversations.length; i += 20) {
      await Promise.all(
        conversations.slice(i, i + 20).map((phone) => {
          const timers = Array.from({ length: perConversation }, (_, n) =>
            timerRecord(phone, `t${n}`, due, undefined, `run-${phone}`),
          );
          return commitTimers(store, phone, { set: timers, cancel: [] });
        }),
      );
    }
    const total = conversations.length * perConversation;
    const pending = await Promise.all(
      conversations.map(async (phone) => (await store.pendingTimers(keyOf(phone))).length),
    );
    expect(pending.reduce((sum, n) => sum + n, 0)).toBe(total);

    expect(await claimAllDue(store, due - 1, 500)).toBe(0);
    expect(await claimAllDue(store, due, 500)).toBe(total);
    expect(await claimAllDue(store, due, 500)).toBe(0);

    const seen = new Set<string>();
    for (const phone of conversations) {
      const events = (await store.pendingEvents(keyOf(phone))) as TimerEvent[];
      expect(events).toHaveLength(perConversation);
      for (const event of events) {
        expect(event).toMatchObject({ kind: 'timer', phone, dueAt: due, receivedAt: due });
        seen.add(`${phone}/${event.id}`);
      }
    }
    expect(seen.size).toBe(total);
    for (let p = 0; p < store.partitions; p++) expect(await store.nextTimerDue(p)).toBeNull();
    expect(await redisA.keys(`${prefix}*timer*`)).toEqual([]);
    await store.close();
  });
});
