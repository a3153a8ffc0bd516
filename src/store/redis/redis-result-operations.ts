import type { ConversationResult } from '../records.ts';
import type { Store } from '../store.ts';
import { type RedisStoreContext, withStoreErrors } from './redis-store-context.ts';

/** Results read per round trip. */
const batch = 500;

/** The results of a bot's conversations, partition after partition, `batch` at a time. */
export function redisResultOperations(
  { redis, keys }: RedisStoreContext,
  partitions: number,
): Pick<Store, 'listResults'> {
  return {
    async *listResults(botId, query = {}) {
      const since = query.since ?? Number.NEGATIVE_INFINITY;
      for (let p = 0; p < partitions; p++) {
        const partition = keys.partition(p);
        const index = partition.resultsPrefix + botId;
        for (let offset = 0; ; offset += batch) {
          // Scored by end (or start) time, so the index can be trimmed to the retention:
          // `since` (a start time) is applied to the results themselves.
          const runIds = await withStoreErrors('listResults', () =>
            redis.zrangebyscore(index, '-inf', '+inf', 'LIMIT', offset, batch),
          );
          if (runIds.length === 0) break;
          const jsons = await withStoreErrors('listResults', () =>
            redis.mget(...runIds.map((runId) => partition.resultPrefix + runId)),
          );
          const results = jsons
            .filter((json): json is string => json !== null)
            .map((json) => JSON.parse(json) as ConversationResult)
            .filter(
              (result) =>
                result.startedAt >= since &&
                (query.location === undefined || result.location === query.location),
            );
          if (results.length > 0) yield results;
          if (runIds.length < batch) break;
        }
      }
    },
  };
}
