import type { ConversationRecord } from './records.ts';
import type { Store } from './store.ts';

/** Records read per page while collecting: bounded, so a scrape never floods the connection. */
const pageSize = 100;

/**
 * Up to `limit` conversation records, read through `scanConversations` (both drivers; every
 * master of a Redis Cluster), and whether they are all of them.
 */
export async function collectRecords(
  scan: Store['scanConversations'],
  limit: number,
): Promise<{ records: ConversationRecord[]; complete: boolean }> {
  const records: ConversationRecord[] = [];
  let cursor = '0';
  do {
    const page = await scan(cursor, Math.min(pageSize, Math.max(1, limit - records.length)));
    cursor = page.cursor;
    for (const record of page.records) {
      if (records.length >= limit) return { records, complete: false };
      records.push(record);
    }
  } while (cursor !== '0');
  return { records, complete: true };
}
