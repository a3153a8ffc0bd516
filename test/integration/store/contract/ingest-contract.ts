import { describe, expect, it } from 'vitest';
import type { Store } from '../../../../src/store/store.ts';
import {
  claimOf,
  keyOf,
  phonesInDistinctPartitions,
  recordedSms,
  replyEvent,
  startEvent,
  statusItem,
  t0,
} from './fixtures.ts';

export function ingestContract(store: () => Store): void {
  describe('ingest', () => {
    it('pushes a notification delivered 11 times one after the other only once', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const results = [];
      for (let i = 0; i < 11; i++) {
        results.push(await store().ingest('n-1', [{ event: replyEvent('e-1', phone) }], t0 + i));
      }
      expect(results[0]).toEqual({ duplicate: false, pushed: 1 });
      expect(results.slice(1).every((r) => r.duplicate && r.pushed === 0)).toBe(true);
      expect((await store().pendingEvents(keyOf(phone))).map((e) => e.id)).toEqual(['e-1']);
    });

    it('pushes a notification delivered 11 times at once only once', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const results = await Promise.all(
        Array.from({ length: 11 }, () =>
          store().ingest('n-1', [{ event: replyEvent('e-1', phone) }], t0),
        ),
      );
      expect(results.filter((r) => !r.duplicate)).toEqual([{ duplicate: false, pushed: 1 }]);
      expect(await store().pendingEvents(keyOf(phone))).toHaveLength(1);
    });

    it('keeps the ingest order of one conversation, within and across notifications', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await store().ingest('n-1', [{ event: startEvent('e-1', phone) }], t0);
      await store().ingest(
        'n-2',
        [{ event: replyEvent('e-2', phone) }, { event: replyEvent('e-3', phone) }],
        t0 + 1,
      );
      await store().ingest('n-3', [{ event: replyEvent('e-4', phone) }], t0 + 2);
      expect((await store().pendingEvents(keyOf(phone))).map((e) => e.id)).toEqual([
        'e-1',
        'e-2',
        'e-3',
        'e-4',
      ]);
    });

    it('takes items of several partitions in one call, each ready in its own partition', async () => {
      const phones = phonesInDistinctPartitions(store(), 3);
      const items = phones.map((phone, i) => ({ event: replyEvent(`e-${i}`, phone) }));
      expect(await store().ingest('n-1', items, t0)).toEqual({ duplicate: false, pushed: 3 });
      for (const [i, phone] of phones.entries()) {
        expect((await store().pendingEvents(keyOf(phone))).map((e) => e.id)).toEqual([`e-${i}`]);
        await claimOf(store(), 'inbox', phone, t0);
      }
      expect(await store().ingest('n-1', items, t0 + 1)).toEqual({ duplicate: true, pushed: 0 });
    });

    it('answers an empty notification as new and pushes nothing', async () => {
      expect(await store().ingest('n-empty', [], t0)).toEqual({ duplicate: false, pushed: 0 });
    });

    it('creates the message record for a status of an unknown sms, and keeps the event out of the mailbox', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      expect(await store().ingest('n-1', [statusItem('s-1', phone, 'sms-1', 'sent')], t0)).toEqual({
        duplicate: false,
        pushed: 0,
      });
      expect(await store().pendingEvents(keyOf(phone))).toEqual([]);
      expect(await store().getMessage(phone, 'sms-1')).toEqual({
        v: 1,
        location: 'paris',
        phone,
        smsId: 'sms-1',
        status: 'sent',
        statusReason: 'sent-reason',
        parts: 2,
        price: 0.0075,
        updatedAt: '2025-11-21T10:00:00Z',
      });
    });

    it('moves a message status forward only: a late or repeated status is neither written nor pushed', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await recordedSms(store(), phone, 'sms-1');
      // recordSent wrote `pending`: a `pending` status does not move it.
      expect(
        await store().ingest('n-0', [statusItem('s-0', phone, 'sms-1', 'pending')], t0),
      ).toMatchObject({ pushed: 0 });
      await store().ingest('n-1', [statusItem('s-1', phone, 'sms-1', 'sent')], t0);
      await store().ingest('n-2', [statusItem('s-2', phone, 'sms-1', 'delivered')], t0);
      expect(await store().ingest('n-3', [statusItem('s-3', phone, 'sms-1', 'sent')], t0)).toEqual({
        duplicate: false,
        pushed: 0,
      });
      expect(
        await store().ingest('n-4', [statusItem('s-4', phone, 'sms-1', 'delivered')], t0),
      ).toMatchObject({ pushed: 0 });
      expect(
        await store().ingest('n-5', [statusItem('s-5', phone, 'sms-1', 'errored')], t0),
      ).toMatchObject({ pushed: 0 });
      expect(await store().getMessage(phone, 'sms-1')).toMatchObject({
        status: 'delivered',
        statusReason: 'delivered-reason',
      });
      expect((await store().pendingEvents(keyOf(phone))).map((e) => e.id)).toEqual(['s-1', 's-2']);
    });
  });
}
