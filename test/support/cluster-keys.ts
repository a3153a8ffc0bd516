import { Redis } from 'ioredis';
import { expect } from 'vitest';
import type { ReplyLoop } from './reply-loop.ts';

/**
 * How many keys under `prefix` each master of a Redis Cluster holds, by `host:port` (one
 * `SCAN … MATCH prefix*` per master: a cluster's keyspace is the union of its masters').
 */
export async function keysPerMaster(
  nodes: readonly string[],
  prefix: string,
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const node of await mastersOf(nodes)) {
    const [host, port] = node.split(':');
    const redis = new Redis(Number(port), host!, { maxRetriesPerRequest: 1 });
    try {
      let cursor = '0';
      let count = 0;
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        cursor = next;
        count += keys.length;
      } while (cursor !== '0');
      counts.set(node, count);
    } finally {
      redis.disconnect();
    }
  }
  return counts;
}

/** `host:port` of every master, read from `CLUSTER NODES` on the first node. */
export async function mastersOf(nodes: readonly string[]): Promise<string[]> {
  const [host, port] = nodes[0]!.split(':');
  const redis = new Redis(Number(port), host!, { maxRetriesPerRequest: 1 });
  try {
    const lines = ((await redis.cluster('NODES')) as string).trim().split('\n');
    return lines
      .map((line) => line.split(' '))
      .filter((fields) => fields[2]?.includes('master'))
      .map((fields) => fields[1]!.split('@')[0]!);
  } finally {
    redis.disconnect();
  }
}

/** Deletes every key under `prefix` on every master (what `KEYS` + `UNLINK` do on one Redis). */
export async function unlinkEverywhere(nodes: readonly string[], prefix: string): Promise<void> {
  for (const node of await mastersOf(nodes)) {
    const [host, port] = node.split(':');
    const redis = new Redis(Number(port), host!, { maxRetriesPerRequest: 1 });
    try {
      const keys = await redis.keys(`${prefix}*`);
      // One key per UNLINK (the keys of one command must share a slot), in one pipeline.
      const pipeline = redis.pipeline();
      for (const key of keys) pipeline.unlink(key);
      await pipeline.exec();
    } finally {
      redis.disconnect();
    }
  }
}

/**
 * Fails unless the reply loop's store spread its keys over every master of its cluster, and
 * tells how many each holds: the partitions' hash tags `{p<N>}` must not all land on one node.
 */
export async function expectKeysOnEveryMaster(loop: ReplyLoop): Promise<Map<string, number>> {
  const { clusterNodes, prefix } = loop.redis ?? {};
  if (!clusterNodes || !prefix) throw new Error('the reply loop does not run on a cluster');
  const counts = await keysPerMaster(clusterNodes, prefix);
  console.log(`keys of ${prefix} per master: ${[...counts.values()].join(', ')}`);
  expect(counts.size, 'masters').toBeGreaterThanOrEqual(3);
  const empty = [...counts].filter(([, keys]) => keys === 0).map(([node]) => node);
  expect(empty, `masters holding no key of ${prefix}: ${JSON.stringify([...counts])}`).toEqual([]);
  return counts;
}
