import { resultOf } from '../conversation/result-of.ts';
import type { ConversationResult } from '../store/records.ts';
import type { ResultQuery, Store } from '../store/store.ts';

/** Which results: the store's query, and only the runs one campaign started. */
export interface ResultsQuery extends ResultQuery {
  /** A campaign's name: only the runs it started (filtered here: the store keeps them by bot). */
  campaign?: string;
}

/** Conversation records read per page while looking for the active runs. */
const pageSize = 500;

/**
 * Every result of a bot: the stored ones (written when a run ends, kept for the results'
 * retention), then those of its runs still active, read from their conversation records
 * (`resultOf`): a live run keeps its result in its record rather than in a key of its own.
 * A run listed among the stored ones is not listed again.
 *
 * @example
 * for await (const batch of listResults(store, 'survey', { since: Date.parse('2026-12-01'), campaign: 'spring' })) …
 */
export async function* listResults(
  store: Pick<Store, 'listResults' | 'scanConversations'>,
  botId: string,
  query: ResultsQuery = {},
): AsyncIterable<ConversationResult[]> {
  const { campaign, ...stored } = query;
  const listed = new Set<string>();
  for await (const batch of store.listResults(botId, stored)) {
    for (const result of batch) listed.add(result.runId);
    const kept =
      campaign === undefined ? batch : batch.filter((r) => r.campaign?.name === campaign);
    if (kept.length > 0) yield kept;
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
          (campaign === undefined || record.campaign?.name === campaign) &&
          !listed.has(record.runId),
      )
      .map(resultOf);
    if (active.length > 0) yield active;
  } while (cursor !== '0');
}
