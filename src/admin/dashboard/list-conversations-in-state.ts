import { gaugePaths } from '../../conversation/count-activity.ts';
import type { ConversationRecord } from '../../store/records.ts';
import type { Store } from '../../store/store.ts';

/** The form of a cursor this module answers: the store's page cursor, a dot, a count. */
export const inStateCursor = /^[\d:]{1,40}\.\d{1,6}$/;

export interface InStateQuery {
  location: string;
  bot: string;
  /** A state path (`answering`, `answering.score`); its descendants count too. All when absent. */
  state?: string;
  limit: number;
  /** Where a previous answer stopped (`cursor`), or undefined to begin. */
  cursor?: string;
  /** Records looked at, at most, for this answer. */
  budget: number;
}

export interface InStatePage {
  records: ConversationRecord[];
  /** Where to go on, or undefined once every record was looked at. */
  cursor: string | undefined;
  /** The budget ran out before `limit` were found: more may follow at `cursor`. */
  partial: boolean;
}

const pageSize = 500;

/**
 * Active conversations of a bot in a state (or its descendants), found by reading the records
 * page by page (`scanConversations`): no index, so an answer looks at no more than `budget`
 * records and says where it stopped. The cursor is the store's page cursor and how many of that
 * page's matches were already given (`<store cursor>.<skip>`); on Redis a page read again while
 * keys are written may differ a little, so a long list may repeat or miss one.
 */
export async function listConversationsInState(
  store: Pick<Store, 'scanConversations'>,
  query: InStateQuery,
): Promise<InStatePage> {
  const given = query.cursor ?? '0.0';
  const dot = given.lastIndexOf('.');
  let at = dot > 0 ? given.slice(0, dot) : '0';
  let skip = dot > 0 ? Number(given.slice(dot + 1)) || 0 : 0;
  const found: ConversationRecord[] = [];
  const seen = new Set<string>();
  let looked = 0;
  for (;;) {
    const page = await store.scanConversations(at, pageSize);
    looked += page.records.length;
    const matches = page.records.filter((record) => {
      if (!isInState(record, query) || seen.has(record.phone)) return false;
      seen.add(record.phone);
      return true;
    });
    const room = query.limit - found.length;
    const taken = matches.slice(skip, skip + room);
    found.push(...taken);
    if (skip + taken.length < matches.length) {
      // The page holds more than there was room for: the next answer reads it again.
      return { records: found, cursor: `${at}.${skip + taken.length}`, partial: false };
    }
    skip = 0;
    at = page.cursor;
    if (at === '0') return { records: found, cursor: undefined, partial: false };
    if (found.length >= query.limit) return { records: found, cursor: `${at}.0`, partial: false };
    if (looked >= query.budget) return { records: found, cursor: `${at}.0`, partial: true };
  }
}

function isInState(record: ConversationRecord, query: InStateQuery): boolean {
  if (record.status !== 'active' || record.location !== query.location) return false;
  if (record.botId !== query.bot) return false;
  return query.state === undefined || gaugePaths(record).includes(query.state);
}
