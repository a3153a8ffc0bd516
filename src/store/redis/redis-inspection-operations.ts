import { parseConversationId } from '../conversation-id.ts';
import type { DeadLetter, MailboxEvent, OutboundMessage } from '../records.ts';
import { storableJson } from '../storable-json.ts';
import type { Store } from '../store.ts';
import { storeLimits } from '../store-limits.ts';
import { conversationRecordOf, readConversationValue } from './conversation-value.ts';
import { messageRecordOf } from './message-value.ts';
import { type RedisStoreContext, scanNodes, withStoreErrors } from './redis-store-context.ts';

type InspectionOperations = Pick<
  Store,
  | 'getConversation'
  | 'getMessage'
  | 'listApplied'
  | 'pendingEvents'
  | 'pendingOutbound'
  | 'pushDeadLetter'
  | 'listDeadLetters'
>;

/** Reads for inspection and routing, and the dead letters (kept for the retention, capped). */
export function redisInspectionOperations({
  redis,
  keys,
  scripts,
  retention,
}: RedisStoreContext): InspectionOperations {
  const list = async <T>(operation: string, key: string): Promise<T[]> => {
    const items = await withStoreErrors(operation, () => redis.lrange(key, 0, -1));
    return items.map((json) => JSON.parse(json) as T);
  };

  return {
    async getConversation(key) {
      const record = keys.conversation(key).record;
      const stored = await withStoreErrors('getConversation', () => redis.get(record));
      return conversationRecordOf(stored, key);
    },
    async getMessage(phone, smsId) {
      // Message records live in the partition of their phone: the latest in their
      // conversation's value, which this finds by its key (the location is not given), the
      // others in keys of their own. An inspection read, not on any hot path.
      const c = keys.conversation({ location: '_', phone });
      const own = await withStoreErrors('getMessage', () => redis.get(c.message(smsId)));
      if (own !== null) return messageRecordOf(own, smsId, phone);
      const pattern = `${c.conversationPrefix}*:${phone}`;
      const nodes = await scanNodes(redis, 'getMessage');
      for (const node of nodes) {
        let cursor = '0';
        do {
          const [next, found] = await withStoreErrors('getMessage', () =>
            node.scan(cursor, 'MATCH', pattern, 'COUNT', 1_000),
          );
          cursor = next;
          for (const name of found) {
            const key = parseConversationId(name.slice(c.conversationPrefix.length));
            const stored = await withStoreErrors('getMessage', () => redis.get(name));
            const entry = readConversationValue(stored, key)?.messages.find(([id]) => id === smsId);
            if (entry) return messageRecordOf(entry[1], smsId, phone, key.location);
          }
        } while (cursor !== '0');
      }
      return null;
    },
    async listApplied(key) {
      const record = keys.conversation(key).record;
      const stored = await withStoreErrors('listApplied', () => redis.get(record));
      return readConversationValue(stored, key)?.applied ?? [];
    },
    pendingEvents: (key) =>
      list<MailboxEvent>('pendingEvents', keys.conversation(key).list('inbox')),
    pendingOutbound: (key) =>
      list<OutboundMessage>('pendingOutbound', keys.conversation(key).list('outbox')),

    async pushDeadLetter(letter) {
      const args = [
        storableJson(letter),
        storeLimits.deadLetterCap,
        letter.at,
        retention.conversationsMs,
      ];
      await withStoreErrors('pushDeadLetter', () =>
        scripts.run('push-dead-letter', [keys.deadLetters], args),
      );
    },
    async listDeadLetters(limit = storeLimits.deadLetterCap) {
      const letters = await withStoreErrors('listDeadLetters', () =>
        redis.lrange(keys.deadLetters, 0, limit - 1),
      );
      return letters.map((json) => JSON.parse(json) as DeadLetter);
    },
  };
}
