import type { Redis } from 'ioredis';
import type { ConversationRecord } from '../records.ts';
import type { Store } from '../store.ts';
import { tallyActive } from '../store-sample.ts';
import { jsonOrNull } from './parse-reply.ts';
import {
  isCluster,
  type RedisConnection,
  type RedisStoreContext,
  withStoreErrors,
} from './redis-store-context.ts';

type MonitoringOperations = Pick<Store, 'ping' | 'sample'>;

/** Records read at once while sampling: bounded, so a scrape never floods the connection. */
const readBatch = 100;

/**
 * Readiness (`PING`) and the metrics sample: a SCAN of the conversation records that stops at
 * `limit`, one `ZCARD` per partition for the outboxes, one `LLEN` for the dead letters.
 */
export function redisMonitoringOperations({
  redis,
  keys,
}: RedisStoreContext): MonitoringOperations {
  return {
    async ping() {
      await withStoreErrors('ping', () => redis.ping());
    },
    async sample(limit = 1_000) {
      return withStoreErrors('sample', async () => {
        const found = await scanRecords(redis, keys.conversationRecordPattern, limit);
        const records: Array<ConversationRecord | null> = [];
        for (let i = 0; i < found.keys.length; i += readBatch) {
          const batch = found.keys.slice(i, i + readBatch);
          const jsons = await Promise.all(batch.map((key) => redis.hget(key, 'json')));
          for (const json of jsons) records.push(jsonOrNull<ConversationRecord>(json));
        }
        const partitions = Array.from({ length: keys.partitionCount }, (_, p) =>
          redis.zcard(keys.partition(p).ready('outbox')),
        );
        const [deadLetters, ...depths] = await Promise.all([
          redis.llen(keys.deadLetters),
          ...partitions,
        ]);
        return {
          active: tallyActive(records),
          scanned: found.keys.length,
          complete: found.complete,
          outboxDepth: depths.reduce((sum, n) => sum + n, 0),
          deadLetters,
        };
      });
    },
  };
}

/**
 * Up to `limit` keys matching `pattern`. A Redis Cluster client scans each master in turn (a
 * plain SCAN sees one node's keys only).
 */
async function scanRecords(
  redis: RedisConnection,
  pattern: string,
  limit: number,
): Promise<{ keys: string[]; complete: boolean }> {
  const nodes: Redis[] = isCluster(redis) ? redis.nodes('master') : [redis];
  const found: string[] = [];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      for (const key of batch) {
        if (found.length >= limit) return { keys: found, complete: false };
        found.push(key);
      }
    } while (cursor !== '0');
  }
  return { keys: found, complete: true };
}
