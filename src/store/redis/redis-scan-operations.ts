import type { ConversationRecord } from '../records.ts';
import type { Store } from '../store.ts';
import { type RedisStoreContext, withStoreErrors } from './redis-store-context.ts';

/**
 * `scanConversations` on Redis: SCAN over the conversation records of every partition (the
 * `conv:` keys; `keys.conversationRecordPattern`), then their JSON in one pipeline. Read-only,
 * and SCAN never blocks Redis the way KEYS would. On a Redis Cluster, run it per node.
 */
export function redisScanOperations({
  redis,
  keys,
}: RedisStoreContext): Pick<Store, 'scanConversations'> {
  return {
    async scanConversations(cursor, count) {
      const [next, found] = await withStoreErrors('scanConversations', () =>
        redis.scan(cursor, 'MATCH', keys.conversationRecordPattern, 'COUNT', Math.max(1, count)),
      );
      if (found.length === 0) return { cursor: next, records: [] };
      const pipeline = redis.pipeline();
      for (const key of found) pipeline.hget(key, 'json');
      const answers = await withStoreErrors('scanConversations', async () => {
        const results = (await pipeline.exec()) ?? [];
        const failed = results.find(([error]) => error);
        if (failed) throw failed[0];
        return results.map(([, json]) => json as string | null);
      });
      const records = answers
        .filter((json): json is string => typeof json === 'string')
        .map((json) => JSON.parse(json) as ConversationRecord);
      return { cursor: next, records };
    },
  };
}
