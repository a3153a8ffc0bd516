import { describe, expect, it } from 'vitest';
import type { ConversationRecord } from '../../../../src/store/records.ts';
import type { Store } from '../../../../src/store/store.ts';
import {
  claimOf,
  conversationRecord,
  keyOf,
  phonesInDistinctPartitions,
  startEvent,
  t0,
} from './fixtures.ts';

/** Commits a record for `phone` through the ordinary path (ingest, claim, commit). */
async function commitRecord(store: Store, phone: string, change: Partial<ConversationRecord>) {
  await store.ingest(`n-${phone}`, [{ event: startEvent(`e-${phone}`, phone) }], t0);
  const claim = await claimOf(store, 'inbox', phone, t0);
  const record = { ...conversationRecord(phone, 1), ...change };
  await store.commitStep(
    claim,
    { eventId: `e-${phone}`, expectedSeq: 0, record, outbound: [] },
    t0,
  );
  return record;
}

async function scanAll(store: Store, count: number) {
  const seen = new Map<string, ConversationRecord>();
  let cursor = '0';
  let pages = 0;
  do {
    const page = await store.scanConversations(cursor, count);
    for (const record of page.records) seen.set(`${record.location}:${record.phone}`, record);
    cursor = page.cursor;
    pages++;
  } while (cursor !== '0' && pages < 1_000_000);
  return { records: [...seen.values()], pages };
}

export function scanContract(store: () => Store): void {
  describe('scanConversations', () => {
    it('finds no record in an empty store, and ends with the cursor 0', async () => {
      // On Redis a page may be empty before the end: SCAN walks keys other prefixes hold too.
      const { records, pages } = await scanAll(store(), 1000);
      expect(records).toEqual([]);
      expect(pages).toBeLessThan(1_000_000);
    });

    it('reads every conversation record of every partition, whatever its status, page by page', async () => {
      const phones = phonesInDistinctPartitions(store(), 5);
      const written = [];
      for (const [n, phone] of phones.entries()) {
        written.push(
          await commitRecord(
            store(),
            phone,
            n === 0 ? { status: 'done', endedReason: 'final' } : {},
          ),
        );
      }
      const { records } = await scanAll(store(), 3);
      const byPhone = (a: ConversationRecord, b: ConversationRecord) =>
        a.phone.localeCompare(b.phone);
      expect(records.sort(byPhone)).toEqual(written.sort(byPhone));
    });

    it('writes nothing: the records and mailboxes stay as they were', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const record = await commitRecord(store(), phone, {});
      await store().ingest('n-late', [{ event: startEvent('e-late', phone) }], t0);
      await scanAll(store(), 3);
      expect(await store().getConversation(keyOf(phone))).toEqual(record);
      expect((await store().pendingEvents(keyOf(phone))).map((event) => event.id)).toEqual([
        'e-late',
      ]);
    });
  });
}
