import { parseConversationId } from '../conversation-id.ts';
import type { ConversationRecord } from '../records.ts';
import type { Store } from '../store.ts';
import { conversationRecordOf } from './conversation-value.ts';
import {
  isCluster,
  type RedisStoreContext,
  scanNodes,
  withStoreErrors,
} from './redis-store-context.ts';

/**
 * `scanConversations` on Redis: SCAN over the conversation records of every partition (the
 * `conv:` keys; `keys.conversationRecordPattern`), then their JSON. Read-only, and SCAN never
 * blocks Redis the way KEYS would. On a Cluster every master is scanned in turn: the cursor is
 * then `<master index>:<that master's cursor>`.
 */
export function redisScanOperations({
  redis,
  keys,
}: RedisStoreContext): Pick<Store, 'scanConversations'> {
  return {
    async scanConversations(cursor, count) {
      const nodes = await scanNodes(redis, 'scanConversations');
      const [index, nodeCursor] = isCluster(redis) ? clusterCursor(cursor) : [0, cursor];
      const node = nodes[index];
      if (!node) return { cursor: '0', records: [] };
      const [next, found] = await withStoreErrors('scanConversations', () =>
        node.scan(nodeCursor, 'MATCH', keys.conversationRecordPattern, 'COUNT', Math.max(1, count)),
      );
      // One call per key, sent together: on a Cluster the keys live in different slots.
      const answers = await withStoreErrors('scanConversations', () =>
        Promise.all(found.map((key) => redis.get(key))),
      );
      const records: ConversationRecord[] = [];
      answers.forEach((stored, i) => {
        // The key ends `conv:<location>:<phone>`, the conversation id.
        const id = found[i]!.slice(found[i]!.indexOf('}:conv:') + '}:conv:'.length);
        const record = conversationRecordOf(stored, parseConversationId(id));
        if (record) records.push(record);
      });
      if (!isCluster(redis)) return { cursor: next, records };
      const more =
        next !== '0' ? `${index}:${next}` : index + 1 < nodes.length ? `${index + 1}:0` : '0';
      return { cursor: more, records };
    },
  };
}

function clusterCursor(cursor: string): [number, string] {
  if (cursor === '0') return [0, '0'];
  const match = /^(\d+):(\d+)$/.exec(cursor);
  if (!match) {
    throw new TypeError(`cursor '${cursor}' is not one scanConversations gave: start with '0'`);
  }
  return [Number(match[1]), match[2]!];
}
