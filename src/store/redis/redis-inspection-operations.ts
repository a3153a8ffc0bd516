import type { DeadLetter, MailboxEvent, OutboundMessage } from '../records.ts';
import type { Store } from '../store.ts';
import { storeLimits } from '../store-limits.ts';
import { jsonOrNull } from './parse-reply.ts';
import { type RedisStoreContext, withStoreErrors } from './redis-store-context.ts';

type InspectionOperations = Pick<
  Store,
  | 'getConversation'
  | 'isSuppressed'
  | 'getMessage'
  | 'listApplied'
  | 'pendingEvents'
  | 'pendingOutbound'
  | 'pushDeadLetter'
  | 'listDeadLetters'
>;

/** Reads for inspection and routing, and the dead letters: plain commands, no script needed. */
export function redisInspectionOperations({
  redis,
  keys,
}: RedisStoreContext): InspectionOperations {
  const list = async <T>(operation: string, key: string): Promise<T[]> => {
    const items = await withStoreErrors(operation, () => redis.lrange(key, 0, -1));
    return items.map((json) => JSON.parse(json) as T);
  };

  return {
    async getConversation(key) {
      const record = keys.conversation(key).record;
      return jsonOrNull(await withStoreErrors('getConversation', () => redis.hget(record, 'json')));
    },
    async isSuppressed(key) {
      const suppressed = keys.conversation(key).suppressed;
      return (await withStoreErrors('isSuppressed', () => redis.exists(suppressed))) === 1;
    },
    async getMessage(phone, smsId) {
      // Message records live in the partition of their phone; the location plays no part.
      const message = keys.conversation({ location: '_', phone }).message(smsId);
      return jsonOrNull(await withStoreErrors('getMessage', () => redis.hget(message, 'json')));
    },
    async listApplied(key) {
      const applied = keys.conversation(key).applied;
      return withStoreErrors('listApplied', () => redis.lrange(applied, 0, -1));
    },
    pendingEvents: (key) =>
      list<MailboxEvent>('pendingEvents', keys.conversation(key).list('inbox')),
    pendingOutbound: (key) =>
      list<OutboundMessage>('pendingOutbound', keys.conversation(key).list('outbox')),

    async pushDeadLetter(letter) {
      const json = JSON.stringify(letter);
      await withStoreErrors('pushDeadLetter', async () => {
        const results = await redis
          .multi()
          .lpush(keys.deadLetters, json)
          .ltrim(keys.deadLetters, 0, storeLimits.deadLetterCap - 1)
          .exec();
        const failed = results?.find(([error]) => error);
        if (failed) throw failed[0];
      });
    },
    async listDeadLetters(limit = storeLimits.deadLetterCap) {
      const letters = await withStoreErrors('listDeadLetters', () =>
        redis.lrange(keys.deadLetters, 0, limit - 1),
      );
      return letters.map((json) => JSON.parse(json) as DeadLetter);
    },
  };
}
