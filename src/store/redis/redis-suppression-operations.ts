import { conversationId, parseConversationId } from '../conversation-id.ts';
import type { Store } from '../store.ts';
import { type Suppression, suppressionOf, suppressionValue } from '../suppression.ts';
import { eventValue } from './event-value.ts';
import {
  announceEvents,
  type RedisStoreContext,
  scanNodes,
  withStoreErrors,
} from './redis-store-context.ts';

type SuppressionOperations = Pick<
  Store,
  'isSuppressed' | 'markOptedOut' | 'addSuppressions' | 'removeSuppression' | 'listSuppressions'
>;

/** A `SET NX` of a suppression, and the event queued with it: [events, due, id, value, due time]. */
type Write = [
  key: string,
  value: string,
  event?: [events: string, due: string, id: string, value: string, at: number],
];

/** Marks the conversation id in a `suppressed:` key (after the partition's hash tag). */
const idMarker = '}:suppressed:';

/**
 * The suppression list on Redis: one `suppressed:<location>:<phone>` string per phone, in the
 * phone's partition (the sender's scripts check it there), holding `{ at, reason?, source? }`.
 */
export function redisSuppressionOperations(context: RedisStoreContext): SuppressionOperations {
  const { redis, keys } = context;

  /**
   * One `SET NX` per entry (`add-suppression-3` for one with an event to queue), in one
   * pipeline per partition; on a Cluster the pipelines go at once.
   */
  async function setMissing(writes: Write[][]): Promise<boolean[]> {
    const replies = await Promise.all(
      writes.map(async (group) => {
        const pipeline = redis.pipeline();
        for (const [key, value, event] of group) {
          if (!event) pipeline.set(key, value, 'NX');
          else {
            const [events, due, id, eventJson, at] = event;
            context.scripts.queue(
              pipeline,
              'add-suppression',
              [key, events, due],
              [value, id, eventJson, at],
            );
          }
        }
        const results = (await pipeline.exec()) ?? [];
        const failed = results.find(([error]) => error);
        if (failed) throw failed[0];
        return results.map(([, reply]) => reply === 'OK' || reply === 1);
      }),
    );
    return replies.flat();
  }

  return {
    async isSuppressed(key) {
      const suppressed = keys.conversation(key).suppressed;
      return (await withStoreErrors('isSuppressed', () => redis.exists(suppressed))) === 1;
    },

    async markOptedOut(key, now, reason) {
      const suppressed = keys.conversation(key).suppressed;
      const value = suppressionValue({ at: now, reason, source: 'stop' });
      await withStoreErrors('markOptedOut', () => redis.set(suppressed, value));
    },

    async addSuppressions(location, entries, source) {
      const byPartition = new Map<number, Write[]>();
      for (const entry of entries) {
        const c = keys.conversation({ location, phone: entry.phone });
        const group = byPartition.get(c.number) ?? [];
        const value = suppressionValue({ at: entry.at, reason: entry.reason, source });
        const { event } = entry;
        if (!event) group.push([c.suppressed, value]);
        else {
          const p = keys.partition(c.number);
          const due = Date.parse(event.timestamp);
          group.push([
            c.suppressed,
            value,
            [p.events, p.eventsDue, event.id, eventValue(event, due), due],
          ]);
        }
        byPartition.set(c.number, group);
      }
      if (byPartition.size === 0) return { added: 0, existing: 0 };
      const written = await withStoreErrors('addSuppressions', () =>
        setMissing([...byPartition.values()]),
      );
      for (const [partition, group] of byPartition) {
        if (group.some((write) => write[2] !== undefined)) announceEvents(context, partition);
      }
      const added = written.filter(Boolean).length;
      return { added, existing: written.length - added };
    },

    async removeSuppression(key, event) {
      const c = keys.conversation(key);
      const p = keys.partition(c.number);
      const due = event ? Date.parse(event.timestamp) : 0;
      const removed = await withStoreErrors('removeSuppression', () =>
        context.scripts.run(
          'remove-suppression',
          [c.suppressed, c.record, p.events, p.eventsDue],
          [
            context.retention.conversationsMs,
            event?.id ?? '',
            event ? eventValue(event, due) : '',
            due,
          ],
        ),
      );
      if (removed === 1 && event) announceEvents(context, c.number);
      return removed === 1;
    },

    async *listSuppressions(location, batchSize = 500) {
      // Checks the location's form (a `*` or `:` in it would widen the pattern).
      conversationId({ location, phone: '0' });
      const pattern = keys.suppressedPattern(location);
      const nodes = await scanNodes(redis, 'listSuppressions');
      // SCAN may answer a key twice (while the table is rehashed): each phone comes once.
      const seen = new Set<string>();
      for (const node of nodes) {
        let cursor = '0';
        do {
          const [next, found] = await withStoreErrors('listSuppressions', () =>
            node.scan(cursor, 'MATCH', pattern, 'COUNT', Math.max(1, batchSize)),
          );
          cursor = next;
          const fresh = found.filter((key) => !seen.has(key));
          if (fresh.length === 0) continue;
          // One GET per key, sent together: on a Cluster the keys live in different slots.
          const values = await withStoreErrors('listSuppressions', () =>
            Promise.all(fresh.map((key) => redis.get(key))),
          );
          const batch: Suppression[] = [];
          values.forEach((stored, i) => {
            const key = fresh[i]!;
            seen.add(key);
            // Removed between the SCAN and the GET: gone.
            if (stored === null) return;
            const { phone } = parseConversationId(
              key.slice(key.indexOf(idMarker) + idMarker.length),
            );
            batch.push(suppressionOf(phone, stored));
          });
          if (batch.length > 0) yield batch;
        } while (cursor !== '0');
      }
    },
  };
}
