import { resultOf } from '../conversation/result-of.ts';
import type { ConversationResult } from '../store/records.ts';
import type { ResultQuery, Store } from '../store/store.ts';

/** Conversation records read per page while looking for the active runs. */
const pageSize = 500;

/**
 * Every result of a bot: the stored ones (written when a run ends, kept for the results'
 * retention), then those of its runs still active, read from their conversation records
 * (`resultOf`): a live run keeps its result in its record rather than in a key of its own.
 * A run listed among the stored ones is not listed again.
 *
 * @example
 * for await (const batch of listResults(store, 'survey', { since: Date.parse('2026-12-01') })) …
 */
export async function* listResults(
  store: Pick<Store, 'listResults' | 'scanConversations'>,
  botId: string,
  query: ResultQuery = {},
): AsyncIterable<ConversationResult[]> {
  const listed = new Set<string>();
  for await (const batch of store.listResults(botId, query)) {
    for (const result of batch) listed.add(result.runId);
    yield batch;
  }
  const since = query.since ?? Number.NEGATIVE_INFINITY;
  let cursor = '0';
  do {
    const page = await store.scanConversations(cursor, pageSize);
    cursor = page.cursor;
    const active = page.records
      .filter(
        (record) =>
          record.status === 'active' &&
          record.botId === botId &&
          record.startedAt >= since &&
          (query.location === undefined || record.location === query.location) &&
          !listed.has(record.runId),
      )
      .map(resultOf);
    if (active.length > 0) yield active;
  } while (cursor !== '0');
}
