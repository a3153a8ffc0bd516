import { describe, expect, it } from 'vitest';
import type { Store } from '../../../../src/store/store.ts';
import {
  claimOf,
  conversationRecord,
  keyOf,
  leaseMs,
  phonesInDistinctPartitions,
  recordedSms,
  replyEvent,
  statusItem,
  t0,
} from './fixtures.ts';

const claimFor = { leaseMs, max: 8 };

/** `ingest` with `claimFor`: the web role's hand-off of the conversations it makes ready. */
export function ingestClaimContract(store: () => Store): void {
  describe('ingest that claims for its worker', () => {
    it('claims the conversations it made ready, across partitions, with their first view', async () => {
      const [a = '', b = ''] = phonesInDistinctPartitions(store(), 2);
      const result = await store().ingest(
        'n-1',
        [
          { event: replyEvent('e-1', a) },
          { event: replyEvent('e-2', b) },
          { event: replyEvent('e-3', a) },
        ],
        t0,
        claimFor,
      );
      expect(result).toMatchObject({ duplicate: false, pushed: 3 });
      const claims = result.claims ?? [];
      expect(claims.map((c) => [c.phone, c.partition, c.view.next?.id])).toEqual(
        expect.arrayContaining([
          [a, store().partitionOf(a), 'e-1'],
          [b, store().partitionOf(b), 'e-2'],
        ]),
      );
      expect(claims).toHaveLength(2);
      expect(new Set(claims.map((c) => c.token)).size).toBe(2);
      // Claimed: hidden from other claimers for the lease, and held by the token it came with.
      expect(await store().claim('inbox', store().partitionOf(a), leaseMs, t0 + 1)).toBeNull();
      const claimA = claims.find((c) => c.phone === a)!;
      const step = {
        eventId: 'e-1',
        expectedSeq: 0,
        record: conversationRecord(a, 1),
        outbound: [],
      };
      expect(await store().commitStep(claimA, step, t0 + 1)).toMatchObject({
        ok: true,
        next: { next: { id: 'e-3' } },
      });
    });

    it('comes with the record of the message the head answers, as readInbox reads it', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await recordedSms(store(), phone, 'sms-42');
      const result = await store().ingest(
        'n-1',
        [{ event: replyEvent('e-1', phone, 'sms-42') }],
        t0 + 1,
        claimFor,
      );
      const [claim] = result.claims ?? [];
      expect(claim?.view).toMatchObject({
        record: { seq: 1 },
        next: { id: 'e-1' },
        origin: { smsId: 'sms-42', outboxId: 'e-sms-42:0' },
      });
      expect(await store().readInbox(claim!)).toEqual(claim!.view);
    });

    it('comes with the record as a status earlier in the same notification left it', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await recordedSms(store(), phone, 'sms-42');
      // The reply is read first, then the status rewrites the value: the view is read after.
      const result = await store().ingest(
        'n-1',
        [
          { event: replyEvent('e-1', phone, 'sms-42') },
          statusItem('s-1', phone, 'sms-42', 'delivered'),
        ],
        t0 + 1,
        claimFor,
      );
      const [claim] = result.claims ?? [];
      expect(claim?.view).toMatchObject({
        next: { id: 'e-1' },
        origin: { smsId: 'sms-42', status: 'delivered', statusReason: 'delivered-reason' },
      });
      expect(await store().readInbox(claim!)).toEqual(claim!.view);
    });

    it('leaves alone a conversation that was ready or held already, and makes no more than max', async () => {
      const [held = '', waiting = '', other = ''] = phonesInDistinctPartitions(store(), 3);
      await store().ingest('n-0', [{ event: replyEvent('e-0', held) }], t0);
      await claimOf(store(), 'inbox', held, t0);
      await store().ingest('n-1', [{ event: replyEvent('e-1', waiting) }], t0);
      const result = await store().ingest(
        'n-2',
        [
          { event: replyEvent('e-2', held) },
          { event: replyEvent('e-3', waiting) },
          { event: replyEvent('e-4', other) },
        ],
        t0 + 1,
        { leaseMs, max: 1 },
      );
      expect(result.claims?.map((c) => c.phone)).toEqual([other]);
      // The waiting one is still there for any claimer; the held one keeps its holder.
      const claimed = await claimOf(store(), 'inbox', waiting, t0 + 2);
      expect(claimed.view.next?.id).toBe('e-1');
      expect(await store().pendingEvents(keyOf(held))).toHaveLength(2);
    });

    it('claims nothing without claimFor, and nothing for a redelivered notification', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const plain = await store().ingest('n-1', [{ event: replyEvent('e-1', phone) }], t0);
      expect(plain.claims ?? []).toEqual([]);
      const again = await store().ingest(
        'n-1',
        [{ event: replyEvent('e-1', phone) }],
        t0,
        claimFor,
      );
      expect(again).toMatchObject({ duplicate: true, pushed: 0 });
      expect(again.claims ?? []).toEqual([]);
    });
  });
}
