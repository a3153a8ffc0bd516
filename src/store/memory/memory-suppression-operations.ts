import type { OutboundEvent } from '../../events/outbound-event.ts';
import { conversationId, parseConversationId } from '../conversation-id.ts';
import type { ConversationRecord } from '../records.ts';
import { storableJson } from '../storable-json.ts';
import type { Store } from '../store.ts';
import { type Suppression, suppressionOf, suppressionValue } from '../suppression.ts';
import type { MemoryState } from './memory-state.ts';

type SuppressionOperations = Pick<
  Store,
  'isSuppressed' | 'markOptedOut' | 'addSuppressions' | 'removeSuppression' | 'listSuppressions'
>;

/** Queues an operator's optout or optin in the phone's partition, due at its timestamp. */
function queueEvent(state: MemoryState, phone: string, event: OutboundEvent): void {
  state.eventOutboxes[state.partitionOf(phone)]!.queue([event], Date.parse(event.timestamp));
}

/** The suppression list in memory: conversation id → the value the Redis key holds. */
export function memorySuppressionOperations(state: MemoryState): SuppressionOperations {
  return {
    async isSuppressed(key) {
      return state.suppressed.has(conversationId(key));
    },

    async markOptedOut(key, now, reason) {
      state.suppressed.set(
        conversationId(key),
        suppressionValue({ at: now, reason, source: 'stop' }),
      );
    },

    async addSuppressions(location, entries, source) {
      let added = 0;
      const ids = entries.map((entry) => conversationId({ location, phone: entry.phone }));
      entries.forEach((entry, i) => {
        const id = ids[i]!;
        if (state.suppressed.has(id)) return;
        state.suppressed.set(id, suppressionValue({ at: entry.at, reason: entry.reason, source }));
        // As add-suppression-3.lua: its optout queued with it, due at its time.
        if (entry.event) queueEvent(state, entry.phone, entry.event);
        added += 1;
      });
      return { added, existing: entries.length - added };
    },

    async removeSuppression(key, event) {
      const id = conversationId(key);
      const removed = state.suppressed.delete(id);
      // As remove-suppression-4.lua: its optin queued when the phone was on the list.
      if (removed && event) queueEvent(state, key.phone, event);
      // As remove-suppression-4.lua: the record's flag goes with the entry.
      const stored = state.conversations.get(id);
      const record = stored ? (JSON.parse(stored) as ConversationRecord) : null;
      if (record?.suppressed) {
        state.conversations.set(id, storableJson({ ...record, suppressed: false }));
      }
      return removed;
    },

    async *listSuppressions(location, batchSize = 500) {
      conversationId({ location, phone: '0' });
      const size = Math.max(1, batchSize);
      let batch: Suppression[] = [];
      for (const [id, stored] of [...state.suppressed]) {
        const key = parseConversationId(id);
        if (key.location !== location) continue;
        batch.push(suppressionOf(key.phone, stored));
        if (batch.length >= size) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0) yield batch;
    },
  };
}
