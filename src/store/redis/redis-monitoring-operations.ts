import { collectRecords } from '../collect-records.ts';
import type { Store } from '../store.ts';
import { tallyActive } from '../store-sample.ts';
import { redisScanOperations } from './redis-scan-operations.ts';
import { type RedisStoreContext, withStoreErrors } from './redis-store-context.ts';

type MonitoringOperations = Pick<Store, 'ping' | 'sample'>;

/**
 * Readiness (`PING`) and the metrics sample: the conversation records through
 * `scanConversations`, stopping at `limit`, one `ZCARD` per partition for the outboxes, one
 * `LLEN` for the dead letters.
 */
export function redisMonitoringOperations(context: RedisStoreContext): MonitoringOperations {
  const { redis, keys } = context;
  // The records come through the scan `replyflow bots check` uses (every master of a Cluster).
  const { scanConversations } = redisScanOperations(context);
  return {
    async ping() {
      await withStoreErrors('ping', () => redis.ping());
    },
    async sample(limit = 1_000) {
      const found = await collectRecords(scanConversations, limit);
      return withStoreErrors('sample', async () => {
        const partitions = Array.from({ length: keys.partitionCount }, (_, p) =>
          redis.zcard(keys.partition(p).ready('outbox')),
        );
        const [deadLetters, ...depths] = await Promise.all([
          redis.llen(keys.deadLetters),
          ...partitions,
        ]);
        return {
          active: tallyActive(found.records),
          scanned: found.records.length,
          complete: found.complete,
          outboxDepth: depths.reduce((sum, n) => sum + n, 0),
          deadLetters,
        };
      });
    },
  };
}
