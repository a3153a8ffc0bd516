import { describe, expect, it } from 'vitest';
import type { CampaignMeta } from '../../../../src/store/campaign-records.ts';
import type { Store } from '../../../../src/store/store.ts';
import { location, phonesInDistinctPartitions, t0 } from './fixtures.ts';

const hour = 3_600_000;

const apiMeta: CampaignMeta = {
  v: 1,
  location,
  name: '_api',
  bot: '',
  status: 'active',
  schedule: { at: 'each start its own' },
  ratePerSecond: 20,
  timeZone: 'UTC',
  late: { kind: 'sendIfWithin', ms: 15 * 60_000 },
  chunks: 4,
  generation: 1,
  createdAt: t0,
  updatedAt: t0,
};

/** A keyed API start's row: its key's row, its phone, its bot and its request hash. */
const start = (phone: string, due: number, request: string, bot = 'appointment') => ({
  phone,
  bot,
  input: { name: 'Ada' },
  request,
  state: 'scheduled' as const,
  due,
});

/** The store's side of the API's keyed starts (src/campaigns/schedule-start.ts). */
export function apiStartContract(store: () => Store): void {
  describe('API starts (keyed records)', () => {
    it('tells a row with the same time and input but another request as a change, the same request as unchanged', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const rows = (request: string, bot?: string) => [
        { row: 'kone', record: start(phone, t0 + hour, request, bot) },
      ];
      expect(await store().upsertRecipients(apiMeta, 1, rows('r1'))).toMatchObject({ added: 1 });
      expect(await store().upsertRecipients(apiMeta, 1, rows('r1'))).toMatchObject({
        unchanged: 1,
      });
      expect(await store().upsertRecipients(apiMeta, 1, rows('r2', 'survey'))).toMatchObject({
        rescheduled: 1,
      });
      const found = await store().findRecipient(apiMeta, 'kone');
      expect(found?.entry.record).toMatchObject({ bot: 'survey', request: 'r2', revision: 1 });
    });

    it('prunes the rows that ended before a time, with their counters; waiting and later ones stay', async () => {
      const phones = phonesInDistinctPartitions(store(), 2);
      const [a = '', b = ''] = phones;
      await store().upsertRecipients(apiMeta, 1, [
        { row: 'kstarted', record: start(a, t0, 'r') },
        { row: 'kcancelled', record: start(a, t0 + hour, 'r') },
        { row: 'klate', record: { ...start(a, t0, 'r'), state: 'skipped', reason: 'past_due' } },
        { row: 'kwaiting', record: start(a, t0 - hour, 'r') },
        { row: 'krecent', record: start(a, t0 + 5 * hour, 'r') },
        { row: 'kother', record: start(b, t0, 'r') },
      ]);
      const fire = async (row: string, action: 'start' | 'skip') => {
        const found = (await store().findRecipient(apiMeta, row))!;
        const decision =
          action === 'start'
            ? {
                row,
                revision: 0,
                action,
                phone: { location, phone: a },
                event: JSON.stringify({
                  v: 1,
                  id: `campaign:${location}:_api:${row}:0:0`,
                  kind: 'start',
                  location,
                  phone: a,
                  receivedAt: t0,
                  botId: 'appointment',
                  input: {},
                }),
              }
            : { row, revision: 0, action, reason: 'cancelled' as const };
        expect(await store().fireRecipients(found.chunk, [decision], t0)).toMatchObject({
          state: 'active',
        });
      };
      await fire('kstarted', 'start');
      await fire('kcancelled', 'skip');
      await fire('krecent', 'start');
      expect(await store().campaignCounts(apiMeta)).toEqual({
        started: 2,
        'skipped:cancelled': 1,
        'skipped:past_due': 1,
        scheduled: 2,
      });

      const partition = store().partitionOf(a);
      expect(await store().pruneRecipients(apiMeta, partition, t0 + 2 * hour)).toBe(3);
      expect(await store().findRecipient(apiMeta, 'kstarted')).toBeNull();
      expect(await store().findRecipient(apiMeta, 'kcancelled')).toBeNull();
      expect(await store().findRecipient(apiMeta, 'klate')).toBeNull();
      expect((await store().findRecipient(apiMeta, 'kwaiting'))?.entry.record.state).toBe(
        'scheduled',
      );
      expect((await store().findRecipient(apiMeta, 'krecent'))?.entry.record.state).toBe('started');
      // Another partition's rows are its own call's.
      expect((await store().findRecipient(apiMeta, 'kother'))?.entry.record.state).toBe(
        'scheduled',
      );
      expect(await store().campaignCounts(apiMeta)).toEqual({ started: 1, scheduled: 2 });
      expect(await store().pruneRecipients(apiMeta, partition, t0 + 2 * hour)).toBe(0);
      // The waiting one still fires at its time.
      expect(await store().nextCampaignDue(partition)).toBe(t0 - hour);
    });
  });
}
