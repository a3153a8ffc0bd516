import type { ConversationRecord } from '../records.ts';
import type { Store } from '../store.ts';
import type { MemoryState } from './memory-state.ts';

/**
 * `scanConversations` on the memory store: the cursor is a position in the conversation ids,
 * sorted, so a page stays put while other conversations are written.
 */
export function memoryScanOperations(state: MemoryState): Pick<Store, 'scanConversations'> {
  return {
    async scanConversations(cursor, count) {
      const from = Number(cursor);
      if (!Number.isInteger(from) || from < 0) {
        throw new TypeError(`cursor '${cursor}' is not one scanConversations gave: start with '0'`);
      }
      const ids = [...state.conversations.keys()].sort();
      const page = ids.slice(from, from + Math.max(1, count));
      const next = from + page.length;
      return {
        cursor: next >= ids.length ? '0' : String(next),
        records: page.map((id) => JSON.parse(state.conversations.get(id)!) as ConversationRecord),
      };
    },
  };
}
