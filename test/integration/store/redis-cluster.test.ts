import type { Socket } from 'node:net';
import type { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coalesceWrites } from '../../../src/store/redis/coalesce-writes.ts';
import {
  connectRedisCluster,
  createRedisStore,
} from '../../../src/store/redis/create-redis-store.ts';
import { storeKeys } from '../../../src/store/redis/keys.ts';
import { StoreUnavailableError } from '../../../src/store/store-errors.ts';
import { keysPerMaster, unlinkEverywhere } from '../../support/cluster-keys.ts';
import { countHandleWrites } from '../../support/count-handle-writes.ts';
import { randomPrefix, testClusterNodes } from '../../support/redis.ts';
import { throwawayRedisCluster } from '../../support/throwaway-redis-cluster.ts';
import { replyEvent, t0 } from './contract/fixtures.ts';

/** The master (`host:port`) serving a key's slot, by the cluster's own slot map. */
async function masterOf(cluster: Cluster, key: string): Promise<string> {
  const slot = Number(await cluster.cluster('KEYSLOT', key));
  const master = cluster.slots[slot]?.[0];
  if (!master) throw new Error(`no master serves slot ${slot}`);
  return master;
}

describe('the Redis store on a 3-master Redis Cluster', () => {
  const nodes = testClusterNodes();
  const prefix = randomPrefix('cluster');
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = connectRedisCluster(nodes);
    await cluster.ping();
  });
  afterAll(async () => {
    await unlinkEverywhere(nodes, prefix);
    await cluster.quit();
  });

  it('spreads the 16 default partitions over all three masters', async () => {
    const keys = storeKeys(prefix, 16);
    const masters = new Map<string, number[]>();
    for (let p = 0; p < 16; p++) {
      const master = await masterOf(cluster, keys.partition(p).ready('inbox'));
      masters.set(master, [...(masters.get(master) ?? []), p]);
    }
    expect(masters.size).toBe(3);
    // The split docs/redis-cluster.md gives for 16 partitions on 3 masters.
    expect([...masters.values()].map((ps) => ps.length).sort()).toEqual([4, 5, 7]);
  });

  it('ingests a notification whose items live on three masters (one call per partition, not one pipeline)', async () => {
    const store = createRedisStore({ redis: cluster, prefix, partitions: 16 });
    const keys = storeKeys(prefix, 16);
    // One phone per master.
    const byMaster = new Map<string, string>();
    for (let n = 0; byMaster.size < 3; n++) {
      const phone = `336120${String(n).padStart(5, '0')}`;
      const master = await masterOf(
        cluster,
        keys.conversation({ location: 'paris', phone }).record,
      );
      if (!byMaster.has(master)) byMaster.set(master, phone);
    }
    const phones = [...byMaster.values()];
    const items = phones.map((phone, i) => ({ event: replyEvent(`e-${i}`, phone) }));
    // ioredis refuses a pipeline whose keys live on several masters: the split is needed.
    const pipeline = cluster.pipeline();
    for (const phone of phones)
      pipeline.get(keys.conversation({ location: 'paris', phone }).record);
    await expect(pipeline.exec()).rejects.toThrow(/same slots allocation group/);

    expect(await store.ingest('n-three-masters', items, t0)).toEqual({
      duplicate: false,
      pushed: 3,
    });
    for (const phone of phones) {
      expect(await store.pendingEvents({ location: 'paris', phone })).toHaveLength(1);
    }
    // Redelivered: every partition's call dedupes.
    expect(await store.ingest('n-three-masters', items, t0 + 1)).toEqual({
      duplicate: true,
      pushed: 0,
    });
    const counts = await keysPerMaster(nodes, prefix);
    expect([...counts.values()].every((count) => count > 0)).toBe(true);
    await store.close();
  });

  it('coalesces the calls of one tick into one write per master', async () => {
    const masters = cluster.nodes('master');
    expect(masters).toHaveLength(3);
    const counts = masters.map((node) => countHandleWrites(node.stream as Socket));
    const coalesce = coalesceWrites(cluster);
    // Keys on every master: `{k0}`…`{k29}` hash over the whole slot range.
    const calls = Array.from({ length: 30 }, (_, i) => {
      coalesce();
      return cluster.incr(`${prefix}{k${i}}:n`);
    });
    expect(await Promise.all(calls)).toEqual(new Array(30).fill(1));
    for (const count of counts) {
      expect(count.write).toBe(0);
      expect(count.writev).toBe(1);
    }
    expect(counts.reduce((sum, count) => sum + count.chunks, 0)).toBe(30);
  });

  it('delivers the ready notifications scripts publish on any master to the subscriber', async () => {
    const store = createRedisStore({ redis: cluster, prefix: `${prefix}ready:`, partitions: 16 });
    const heard = new Set<number>();
    store.onReady((queue, partition) => {
      if (queue === 'inbox') heard.add(partition);
    });
    // The subscription starts on the first listener, asynchronously.
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (let n = 0; heard.size < 16 && n < 2_000; n++) {
      const phone = `336130${String(n).padStart(5, '0')}`;
      if (heard.has(store.partitionOf(phone))) continue;
      await store.ingest(`n-ready-${n}`, [{ event: replyEvent(`r-${n}`, phone) }], t0);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(heard.size).toBe(16);
    await store.close();
    await unlinkEverywhere(nodes, `${prefix}ready:`);
  });
});

describe('the Redis store on a cluster that stops answering', () => {
  it('fails calls with StoreUnavailableError within seconds when every master hangs, works again after, and fails at once once they are gone', async () => {
    const own = await throwawayRedisCluster();
    const cluster = connectRedisCluster(own.nodes);
    cluster.on('error', () => {});
    const store = createRedisStore({
      redis: cluster,
      prefix: randomPrefix('down'),
      partitions: 16,
    });
    try {
      const item = (n: number) => [{ event: replyEvent(`e-${n}`, '33612000001') }];
      expect((await store.ingest('n-1', item(1), t0)).pushed).toBe(1);

      own.signal('SIGSTOP');
      const startedAt = Date.now();
      const failure = await store.ingest('n-2', item(2), t0).catch((error: unknown) => error);
      const failedAfter = Date.now() - startedAt;
      expect(failure).toBeInstanceOf(StoreUnavailableError);
      expect((failure as Error).message).toContain('REDIS_CLUSTER_NODES');
      // commandTimeout (2 s), not the minutes of ioredis's defaults.
      expect(failedAfter).toBeLessThan(4_000);

      own.signal('SIGCONT');
      // Back: the notification is taken (it may have been written by the timed-out call).
      const result = await store.ingest('n-2', item(2), t0);
      expect(result.pushed + (result.duplicate ? 1 : 0)).toBe(1);
      expect(await store.pendingEvents({ location: 'paris', phone: '33612000001' })).toHaveLength(
        2,
      );

      // Gone for good (every master killed): calls fail at once, never wait in the offline queue.
      await own.stop();
      await expect(store.ingest('n-3', item(3), t0)).rejects.toBeInstanceOf(StoreUnavailableError);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const downAt = Date.now();
      await expect(store.ingest('n-4', item(4), t0)).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(Date.now() - downAt).toBeLessThan(500);
    } finally {
      own.signal('SIGCONT');
      await store.close();
      cluster.disconnect();
      await own.stop();
    }
  });
});
