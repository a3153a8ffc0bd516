import { describe, expect, it } from 'vitest';
import type { StatusEvent } from '../../../../src/store/records.ts';
import type { Store } from '../../../../src/store/store.ts';
import {
  claimOf,
  keyOf,
  leaseMs,
  outboundMessage,
  phonesInDistinctPartitions,
  queueOutbound,
  sentRecord,
  statusItem,
  t0,
} from './fixtures.ts';

export function outboxContract(store: () => Store): void {
  describe('outbox', () => {
    it('pops a sent message, guards its id and records the sms; a message with that id again reports it sent', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const message = outboundMessage(phone, 'e-0:0');
      await queueOutbound(store(), phone, [message, outboundMessage(phone, 'e-0:1')]);
      const claim = await claimOf(store(), 'outbox', phone, t0);
      expect(await store().readOutbox(claim, t0)).toEqual({ message, sentSmsId: null });
      expect(claim.view).toEqual({ message, sentSmsId: null });

      const record = sentRecord(phone, 'sms-1', message.id);
      expect(await store().recordSent(claim, message.id, record, t0)).toEqual({
        ok: true,
        nextOutbox: { message: outboundMessage(phone, 'e-0:1'), sentSmsId: null },
        released: false,
      });
      expect((await store().pendingOutbound(keyOf(phone))).map((m) => m.id)).toEqual(['e-0:1']);
      expect(await store().getMessage(phone, 'sms-1')).toEqual(record);
      expect(await store().readOutbox(claim, t0)).toMatchObject({
        message: { id: 'e-0:1' },
        sentSmsId: null,
      });
      expect(
        await store().recordSent(claim, 'e-0:1', sentRecord(phone, 'sms-2', 'e-0:1'), t0),
      ).toEqual({ ok: true, nextOutbox: { message: null, sentSmsId: null }, released: true });
      await store().release(claim, t0);

      await queueOutbound(store(), phone, [message], t0 + 1);
      const again = await claimOf(store(), 'outbox', phone, t0 + 1);
      expect(await store().readOutbox(again, t0)).toEqual({ message, sentSmsId: 'sms-1' });
      expect(again.view).toEqual({ message, sentSmsId: 'sms-1' });
    });

    it('answers a recorded send with the next message and its sent guard, as readOutbox would', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const first = outboundMessage(phone, 'e-0:0');
      const second = outboundMessage(phone, 'e-0:1');
      // `second` was sent once already: its guard holds sms-2.
      await queueOutbound(store(), phone, [second]);
      const earlier = await claimOf(store(), 'outbox', phone, t0);
      await store().recordSent(earlier, second.id, sentRecord(phone, 'sms-2', second.id), t0);
      await store().release(earlier, t0);

      await queueOutbound(store(), phone, [first, second], t0 + 1);
      const claim = await claimOf(store(), 'outbox', phone, t0 + 1);
      expect(claim.view).toEqual({ message: first, sentSmsId: null });
      const result = await store().recordSent(
        claim,
        first.id,
        sentRecord(phone, 'sms-1', first.id),
        t0 + 1,
      );
      expect(result).toEqual({
        ok: true,
        nextOutbox: { message: second, sentSmsId: 'sms-2' },
        released: false,
      });
      expect(result).toEqual({
        ok: true,
        nextOutbox: await store().readOutbox(claim, t0),
        released: false,
      });
    });

    it('keeps the status fields an earlier status notification recorded', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await queueOutbound(store(), phone, [outboundMessage(phone, 'e-0:0')]);
      // The service can report delivery before the sender records the send.
      await store().ingest('n-1', [statusItem('s-1', phone, 'sms-1', 'delivered')], t0);
      const claim = await claimOf(store(), 'outbox', phone, t0);
      await store().recordSent(claim, 'e-0:0', sentRecord(phone, 'sms-1', 'e-0:0'), t0);
      expect(await store().getMessage(phone, 'sms-1')).toEqual({
        v: 1,
        location: 'paris',
        phone,
        smsId: 'sms-1',
        runId: 'run-1',
        botId: 'survey',
        outboxId: 'e-0:0',
        status: 'delivered',
        statusReason: 'delivered-reason',
        parts: 2,
        price: 0.0075,
        updatedAt: '2025-11-21T10:00:00Z',
      });
      await store().ingest('n-2', [statusItem('s-2', phone, 'sms-1', 'sent')], t0);
      expect(await store().getMessage(phone, 'sms-1')).toMatchObject({
        status: 'delivered',
        runId: 'run-1',
      });
    });

    it('releases the claim with the recorded send that empties the outbox, and not before', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await queueOutbound(store(), phone, [
        outboundMessage(phone, 'e-0:0'),
        outboundMessage(phone, 'e-0:1', 'Second'),
      ]);
      const claim = await claimOf(store(), 'outbox', phone, t0);
      const first = await store().recordSent(
        claim,
        'e-0:0',
        sentRecord(phone, 'sms-1', 'e-0:0'),
        t0 + 1,
      );
      expect(first).toMatchObject({ ok: true, released: false });
      // Still held: another claimer finds nothing before the lease ends.
      expect(await store().claim('outbox', claim.partition, leaseMs, t0 + 2)).toBeNull();

      const last = await store().recordSent(
        claim,
        'e-0:1',
        sentRecord(phone, 'sms-2', 'e-0:1'),
        t0 + 3,
      );
      expect(last).toEqual({
        ok: true,
        nextOutbox: { message: null, sentSmsId: null },
        released: true,
      });
      expect(await store().claim('outbox', claim.partition, leaseMs, t0 + 2 * leaseMs)).toBeNull();
      // A message queued later is claimable at once by anyone.
      await queueOutbound(store(), phone, [outboundMessage(phone, 'e-1:0')], t0 + 4);
      const again = await claimOf(store(), 'outbox', phone, t0 + 4);
      expect(again.view.message?.id).toBe('e-1:0');
    });

    it('records a send even for a token that lost the lock, and says so', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await queueOutbound(store(), phone, [outboundMessage(phone, 'e-0:0')]);
      const first = await claimOf(store(), 'outbox', phone, t0);
      await claimOf(store(), 'outbox', phone, t0 + leaseMs);
      const result = await store().recordSent(
        first,
        'e-0:0',
        sentRecord(phone, 'sms-1', 'e-0:0'),
        t0 + leaseMs,
      );
      expect(result).toEqual({ ok: false, reason: 'lost-lock' });
      expect(await store().pendingOutbound(keyOf(phone))).toEqual([]);
      expect(await store().getMessage(phone, 'sms-1')).toMatchObject({ outboxId: 'e-0:0' });
    });

    it('defers a message: stores its attempts, keeps it exactly otherwise, and hides it until notBefore', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const message = outboundMessage(
        phone,
        'e-0:0',
        'Ünïcödé ✓ 🎉 "quotes" back\\slash a/b\nline',
      );
      await queueOutbound(store(), phone, [message]);
      const claim = await claimOf(store(), 'outbox', phone, t0);
      expect(await store().deferOutbound(claim, 'e-9:9', 1, t0 + 60_000)).toEqual({
        ok: false,
        reason: 'stale',
      });
      expect(
        await store().deferOutbound({ ...claim, token: 'x' }, message.id, 1, t0 + 60_000),
      ).toEqual({
        ok: false,
        reason: 'lost-lock',
      });
      expect(await store().deferOutbound(claim, message.id, 3, t0 + 60_000)).toEqual({ ok: true });

      expect(await store().claim('outbox', claim.partition, leaseMs, t0 + 59_999)).toBeNull();
      const again = await claimOf(store(), 'outbox', phone, t0 + 60_000);
      expect(await store().readOutbox(again, t0)).toEqual({
        message: { ...message, attempts: 3 },
        sentSmsId: null,
      });
    });

    it('fails a message: pops it and hands the status event to the mailbox, which becomes ready', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await queueOutbound(store(), phone, [
        outboundMessage(phone, 'e-0:0'),
        outboundMessage(phone, 'e-0:1'),
      ]);
      const claim = await claimOf(store(), 'outbox', phone, t0);
      const failure: StatusEvent = {
        v: 1,
        kind: 'status',
        id: 'send-failed:e-0:0',
        location: 'paris',
        phone,
        receivedAt: t0,
        smsId: '',
        outboxId: 'e-0:0',
        status: 'errored',
        statusReason: 'send_failed',
      };
      expect(await store().failOutbound(claim, 'e-0:1', failure, t0)).toEqual({
        ok: false,
        reason: 'stale',
      });
      expect(await store().failOutbound(claim, 'e-0:0', failure, t0)).toEqual({ ok: true });

      expect((await store().pendingOutbound(keyOf(phone))).map((m) => m.id)).toEqual(['e-0:1']);
      expect(await store().pendingEvents(keyOf(phone))).toEqual([failure]);
      const inbox = await claimOf(store(), 'inbox', phone, t0);
      expect((await store().readInbox(inbox)).next).toEqual(failure);
    });
  });
}
