import type { Store } from '../../src/store/store.ts';

/** Conversation records per `<bot> <status>` (`bench-echo active: 100000`). */
export type ConversationTally = Record<string, number>;

/**
 * Reads every conversation record through the store's own scan (as `replyflow bots check`
 * does) and counts them by bot and status, each (location, phone) once: what the load left,
 * checked against what it was meant to leave.
 */
export async function tallyConversations(store: Store): Promise<ConversationTally> {
  const seen = new Set<string>();
  const tally: ConversationTally = {};
  let cursor = '0';
  do {
    const page = await store.scanConversations(cursor, 1000);
    cursor = page.cursor;
    for (const record of page.records) {
      const id = `${record.location}:${record.phone}`;
      if (seen.has(id)) continue;
      seen.add(id);
      const label = `${record.botId} ${record.status}`;
      tally[label] = (tally[label] ?? 0) + 1;
    }
  } while (cursor !== '0');
  return tally;
}
