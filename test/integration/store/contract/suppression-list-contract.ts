import { describe, expect, it } from 'vitest';
import type { CampaignMeta, RecipientRow } from '../../../../src/store/campaign-records.ts';
import type { ConversationRecord } from '../../../../src/store/records.ts';
import type { Store } from '../../../../src/store/store.ts';
import type { Suppression } from '../../../../src/store/suppression.ts';
import {
  claimOf,
  keyOf,
  location,
  outboundMessage,
  phonesInDistinctPartitions,
  queueOutbound,
  replyEvent,
  startEvent,
  t0,
} from './fixtures.ts';

/** Every suppression of the location, with the batches' sizes. */
async function listAll(store: Store, where = location, batchSize?: number) {
  const entries: Suppression[] = [];
  const sizes: number[] = [];
  for await (const batch of store.listSuppressions(where, batchSize)) {
    sizes.push(batch.length);
    entries.push(...batch);
  }
  return { entries: entries.sort((a, b) => (a.phone < b.phone ? -1 : 1)), sizes };
}

/** A STOP's step: its record marked suppressed, the entry written with the keyword as reason. */
async function commitStop(store: Store, phone: string, now: number, record: ConversationRecord) {
  const eventId = `stop-${now}`;
  await store.ingest(`n-${eventId}`, [{ event: replyEvent(eventId, phone) }], now);
  const claim = await claimOf(store, 'inbox', phone, now);
  const result = await store.commitStep(
    claim,
    {
      eventId,
      expectedSeq: claim.view.record?.seq ?? 0,
      record: { ...record, seq: (claim.view.record?.seq ?? 0) + 1 },
      outbound: [],
      suppression: 'add',
      suppressionReason: 'STOP',
    },
    now,
  );
  expect(result.ok).toBe(true);
}

export function suppressionListContract(store: () => Store): void {
  describe('the suppression list in and out (import, list, remove)', () => {
    it('adds entries across partitions, keeps an entry already there as it was, and lists each once with its time, reason and source', async () => {
      const phones = phonesInDistinctPartitions(store(), 5);
      const [first = '', second = ''] = phones;
      await store().markOptedOut(keyOf(first), t0, 'ARRET');
      const added = await store().addSuppressions(
        location,
        phones.map((phone, i) => ({ phone, at: t0 + 1_000 + i, reason: `crm ${i}` })),
        'import',
      );
      expect(added).toEqual({ added: 4, existing: 1 });
      // A re-import does not make an older opt-out newer, nor change its reason.
      expect(
        await store().addSuppressions(location, [{ phone: second, at: t0 + 9_999 }], 'api'),
      ).toEqual({ added: 0, existing: 1 });
      for (const phone of phones) expect(await store().isSuppressed(keyOf(phone))).toBe(true);
      await store().addSuppressions('nice', [{ phone: first, at: t0 }], 'api');

      const { entries } = await listAll(store());
      expect(entries).toEqual(
        [
          { phone: first, at: t0, reason: 'ARRET', source: 'stop' },
          ...phones.slice(1).map((phone) => ({
            phone,
            at: t0 + 1_000 + phones.indexOf(phone),
            reason: `crm ${phones.indexOf(phone)}`,
            source: 'import',
          })),
        ].sort((a, b) => (a.phone < b.phone ? -1 : 1)),
      );
      expect((await listAll(store(), 'nice')).entries).toEqual([
        { phone: first, at: t0, source: 'api' },
      ]);
      expect(await store().addSuppressions(location, [], 'import')).toEqual({
        added: 0,
        existing: 0,
      });
    });

    it('lists a long list in batches, every phone once', async () => {
      const entries = Array.from({ length: 1_200 }, (_, n) => ({
        phone: `3370000${String(n).padStart(4, '0')}`,
        at: t0 + n,
      }));
      expect(await store().addSuppressions(location, entries, 'import')).toEqual({
        added: 1_200,
        existing: 0,
      });
      const listed = await listAll(store(), location, 100);
      expect(listed.entries.map((e) => e.phone)).toEqual(entries.map((e) => e.phone));
      expect(listed.entries[7]).toEqual({ phone: entries[7]!.phone, at: t0 + 7, source: 'import' });
      expect(listed.sizes.length).toBeGreaterThan(1);
      expect(await listAll(store(), 'lyon')).toEqual({ entries: [], sizes: [] });
    });

    it('drops at send time what is queued for an imported phone, as for a STOP', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await store().addSuppressions(location, [{ phone, at: t0, reason: 'crm' }], 'import');
      await queueOutbound(store(), phone, [outboundMessage(phone, 'e-0:0')], t0 + 1);
      const claim = await claimOf(store(), 'outbox', phone, t0 + 2);
      expect(claim.view).toMatchObject({
        message: null,
        dropped: [{ id: 'e-0:0', reason: 'suppressed' }],
      });
    });

    it('makes a campaign import skip an imported phone as opted_out', async () => {
      const [imported = '', free = ''] = phonesInDistinctPartitions(store(), 2);
      await store().addSuppressions(location, [{ phone: imported, at: t0 }], 'import');
      const campaign: CampaignMeta = {
        v: 1,
        location,
        name: 'spring',
        bot: 'survey',
        status: 'active',
        schedule: { at: new Date(t0 + 60_000).toISOString() },
        ratePerSecond: 20,
        timeZone: 'Europe/Paris',
        late: { kind: 'skip' },
        chunks: 2,
        generation: 1,
        createdAt: t0,
        updatedAt: t0,
      };
      const rows: RecipientRow[] = [imported, free].map((row, i) => ({
        row,
        record: { state: 'scheduled', due: t0 + 60_000, line: i + 2, input: {} },
      }));
      expect(await store().upsertRecipients(campaign, 1, rows)).toMatchObject({ optedOut: 1 });
      expect(await store().campaignCounts(campaign)).toEqual({
        scheduled: 1,
        'skipped:opted_out': 1,
      });
    });

    it('refuses a commit that starts a conversation for a phone on the list, changing nothing', async () => {
      const [phone = '', free = ''] = phonesInDistinctPartitions(store(), 2);
      await store().addSuppressions(location, [{ phone, at: t0 }], 'import');
      for (const p of [phone, free]) {
        await store().ingest(`n-${p}`, [{ event: startEvent(`s-${p}`, p) }], t0);
      }
      const claim = await claimOf(store(), 'inbox', phone, t0);
      const step = {
        eventId: `s-${phone}`,
        expectedSeq: 0,
        record: {
          v: 1 as const,
          location,
          phone,
          runId: 'run-1',
          botId: 'survey',
          botVersion: 'abc',
          status: 'active' as const,
          snapshot: null,
          seq: 1,
          startedAt: t0,
          updatedAt: t0,
        },
        outbound: [outboundMessage(phone, 'hello:0')],
        unlessSuppressed: true,
      };
      expect(await store().commitStep(claim, step, t0)).toEqual({
        ok: false,
        reason: 'suppressed',
      });
      expect(await store().getConversation(keyOf(phone))).toBeNull();
      expect((await store().pendingEvents(keyOf(phone))).map((e) => e.id)).toEqual([`s-${phone}`]);
      expect(await store().pendingOutbound(keyOf(phone))).toEqual([]);
      // The same step for a phone not on the list commits; and without the flag, so does this one.
      const other = await claimOf(store(), 'inbox', free, t0);
      const freeStep = {
        ...step,
        eventId: `s-${free}`,
        record: { ...step.record, phone: free },
        outbound: [],
      };
      expect(await store().commitStep(other, freeStep, t0)).toMatchObject({ ok: true });
      const dropped = { ...step, record: null, outbound: [], unlessSuppressed: false };
      expect(await store().commitStep(claim, dropped, t0)).toMatchObject({ ok: true });
      expect(await store().pendingEvents(keyOf(phone))).toEqual([]);
    });

    it('removes an entry and the record flag of a STOP together, leaving the rest of the record as it was; answers false for a phone not on the list', async () => {
      const [phone = '', other = ''] = phonesInDistinctPartitions(store(), 2);
      const record: ConversationRecord = {
        v: 1,
        location,
        phone,
        runId: 'run-9',
        botId: 'survey',
        botVersion: 'abc',
        status: 'done',
        endedReason: 'opted_out',
        // The bot's own `suppressed` (nested) and an empty array must stay as they are.
        snapshot: { value: 'asked', context: { suppressed: true, list: [], text: 'a "b" \\ c' } },
        seq: 0,
        startedAt: t0,
        updatedAt: t0,
        suppressed: true,
        result: { score: 3 },
      };
      await commitStop(store(), phone, t0, record);
      expect((await listAll(store())).entries).toEqual([
        { phone, at: t0, reason: 'STOP', source: 'stop' },
      ]);
      expect(await store().removeSuppression(keyOf(phone))).toBe(true);
      expect(await store().isSuppressed(keyOf(phone))).toBe(false);
      expect(await store().getConversation(keyOf(phone))).toEqual({
        ...record,
        seq: 1,
        suppressed: false,
      });
      expect(await store().removeSuppression(keyOf(phone))).toBe(false);
      expect(await store().removeSuppression(keyOf(other))).toBe(false);
      expect((await listAll(store())).entries).toEqual([]);

      // An imported entry, with no record at all, goes the same way.
      await store().addSuppressions(location, [{ phone: other, at: t0 }], 'import');
      expect(await store().removeSuppression(keyOf(other))).toBe(true);
      expect(await store().getConversation(keyOf(other))).toBeNull();
    });
  });
}
