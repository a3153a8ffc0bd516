import { describe, expect, it } from 'vitest';
import type { Store } from '../../../../src/store/store.ts';
import {
  claimOf,
  keyOf,
  leaseMs,
  location,
  outboundMessage,
  phonesInDistinctPartitions,
  queueOutbound,
  sentRecord,
  statusItem,
  t0,
} from './fixtures.ts';

/** A status item of an sms whose notification carries its body, as the service sends it. */
const statusWithBody = (id: string, phone: string, smsId: string, body: string) => ({
  ...statusItem(id, phone, smsId, 'sent'),
  body,
});

/**
 * DESIGN §2.4: a sender that dies between the service's acceptance and `recordSent` leaves the
 * head of an outbox sent but unrecorded. The lock that outlives its lease tells the takeover,
 * and the statuses of unrecorded sms tell which sms it was.
 */
export function inDoubtContract(store: () => Store): void {
  describe('in doubt after a takeover', () => {
    it('says when a claim takes an outbox over from a holder that never released it, and only then', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await queueOutbound(store(), phone, [outboundMessage(phone, 'e-0:0')]);
      const first = await claimOf(store(), 'outbox', phone, t0);
      expect(first.view.takenOver).toBeUndefined();
      // Its holder dies: the lease runs out, and the next claim takes over from its lock.
      const second = await claimOf(store(), 'outbox', phone, t0 + leaseMs);
      expect(second.view).toMatchObject({ message: { id: 'e-0:0' }, takenOver: true });
      // A released claim leaves no lock: the claim after it is no takeover.
      await store().release(second, t0 + leaseMs);
      const third = await claimOf(store(), 'outbox', phone, t0 + leaseMs + 1);
      expect(third.view.takenOver).toBeUndefined();
      // Even long after the lease, a lock left behind is still told apart (it has no TTL).
      const fourth = await claimOf(store(), 'outbox', phone, t0 + 100 * leaseMs);
      expect(fourth.view.takenOver).toBe(true);
    });

    it('answers a taken-over head with the sms id the service reported for its body, and records it', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const message = outboundMessage(phone, 'e-0:0', 'Your code is 4411 ✓');
      await queueOutbound(store(), phone, [message, outboundMessage(phone, 'e-0:1', 'Next')]);
      await claimOf(store(), 'outbox', phone, t0);
      // The service accepted the send; its holder died before recordSent. The status comes.
      await store().ingest('n-1', [statusWithBody('s-1', phone, 'sms-9', message.body)], t0 + 5);
      const taken = await claimOf(store(), 'outbox', phone, t0 + leaseMs);
      expect(taken.view).toEqual({ message, sentSmsId: 'sms-9', takenOver: true });

      const result = await store().recordSent(
        taken,
        message.id,
        sentRecord(phone, 'sms-9', message.id),
        t0 + leaseMs,
      );
      expect(result).toMatchObject({ ok: true, nextOutbox: { message: { id: 'e-0:1' } } });
      // The status that waited for the record reaches the mailbox, with the run.
      expect(await store().pendingEvents(keyOf(phone))).toEqual([
        expect.objectContaining({ kind: 'status', smsId: 'sms-9', runId: 'run-1' }),
      ]);
    });

    it('never matches a body to an sms that was recorded, nor a head that is not in doubt', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const body = 'Reply YES or NO';
      const first = outboundMessage(phone, 'e-0:0', body);
      await queueOutbound(store(), phone, [first]);
      // The status overtakes the record of a send that is then recorded normally.
      const claim = await claimOf(store(), 'outbox', phone, t0);
      await store().ingest('n-1', [statusWithBody('s-1', phone, 'sms-1', body)], t0 + 1);
      await store().recordSent(claim, first.id, sentRecord(phone, 'sms-1', first.id), t0 + 2);
      // The worker applies the status that waited for the record.
      const inbox = await claimOf(store(), 'inbox', phone, t0 + 2);
      expect(inbox.view.next).toMatchObject({ kind: 'status', smsId: 'sms-1' });
      const step = { eventId: inbox.view.next!.id, expectedSeq: 1, record: null, outbound: [] };
      expect(await store().commitStep(inbox, step, t0 + 2)).toMatchObject({ ok: true });

      // The same text again, to the same phone; its holder dies before sending.
      const again = outboundMessage(phone, 'e-1:0', body);
      await queueOutbound(store(), phone, [again], t0 + 3);
      const next = await claimOf(store(), 'outbox', phone, t0 + 3);
      expect(next.view).toEqual({ message: again, sentSmsId: null });
      const taken = await claimOf(store(), 'outbox', phone, t0 + 3 + leaseMs);
      expect(taken.view).toEqual({ message: again, sentSmsId: null, takenOver: true });
    });

    it('keeps a deferred head in doubt: the claim after the grace looks its body up again', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const message = outboundMessage(phone, 'e-0:0', 'See you at 10:30');
      await queueOutbound(store(), phone, [message]);
      await claimOf(store(), 'outbox', phone, t0);
      const taken = await claimOf(store(), 'outbox', phone, t0 + leaseMs);
      expect(taken.view).toEqual({ message, sentSmsId: null, takenOver: true });
      const until = t0 + leaseMs + 10_000;
      expect(
        await store().deferOutbound(taken, message.id, 0, until, { inDoubtUntil: until }),
      ).toEqual({ ok: true });
      expect(await store().claim('outbox', taken.partition, leaseMs, until - 1)).toBeNull();

      // The status of the dead holder's send arrives late, but within the grace.
      await store().ingest('n-1', [statusWithBody('s-1', phone, 'sms-7', message.body)], until - 1);
      const later = await claimOf(store(), 'outbox', phone, until);
      expect(later.view).toEqual({
        message: { ...message, inDoubtUntil: until },
        sentSmsId: 'sms-7',
      });
    });

    it('keeps a deferred head in doubt that no status claims: sent after the grace', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const message = outboundMessage(phone, 'e-0:0', 'Hi');
      await queueOutbound(store(), phone, [message]);
      await claimOf(store(), 'outbox', phone, t0);
      const taken = await claimOf(store(), 'outbox', phone, t0 + leaseMs);
      const until = t0 + leaseMs + 10_000;
      await store().deferOutbound(taken, message.id, 0, until, { inDoubtUntil: until });
      // Another sms's status with another body does not count.
      await store().ingest('n-1', [statusWithBody('s-1', phone, 'sms-3', 'Other')], until - 5);
      const later = await claimOf(store(), 'outbox', phone, until);
      expect(later.view).toEqual({ message: { ...message, inDoubtUntil: until }, sentSmsId: null });
    });

    it('keeps, per location, when the latest status of a send in doubt came, and no other status', async () => {
      const [phone = '', other = ''] = phonesInDistinctPartitions(store(), 2);
      const message = outboundMessage(phone, 'e-0:0', 'Your table is ready');
      await queueOutbound(store(), phone, [message]);
      await queueOutbound(store(), other, [outboundMessage(other, 'e-1:0', 'Hello')]);
      expect(await store().inDoubtHeardAt(location)).toBeNull();
      // A status of a head that is not in doubt (it overtook a send's record) is no such status.
      await claimOf(store(), 'outbox', other, t0);
      await store().ingest('n-0', [statusWithBody('s-0', other, 'sms-0', 'Hello')], t0 + 1);
      expect(await store().inDoubtHeardAt(location)).toBeNull();

      // The head's send failed in a way that may have reached the service: in doubt.
      const claim = await claimOf(store(), 'outbox', phone, t0);
      await store().deferOutbound(claim, message.id, 1, t0 + 1_000, {
        inDoubtSince: t0,
        inDoubtUntil: t0 + 30_000,
      });
      // Another sms's status, with another body, does not count.
      await store().ingest('n-1', [statusWithBody('s-1', phone, 'sms-1', 'Other')], t0 + 5);
      expect(await store().inDoubtHeardAt(location)).toBeNull();
      // The status of its send does, with the time it came; the latest one wins.
      await store().ingest('n-2', [statusWithBody('s-2', phone, 'sms-2', message.body)], t0 + 7);
      expect(await store().inDoubtHeardAt(location)).toBe(t0 + 7);
      await store().ingest('n-3', [statusWithBody('s-3', phone, 'sms-2', message.body)], t0 + 9);
      expect(await store().inDoubtHeardAt(location)).toBe(t0 + 7);
      const delivered = { ...statusItem('s-4', phone, 'sms-2', 'delivered'), body: message.body };
      await store().ingest('n-4', [delivered], t0 + 11);
      expect(await store().inDoubtHeardAt(location)).toBe(t0 + 11);
      expect(await store().inDoubtHeardAt('lyon')).toBeNull();
    });

    it('takes a head out of doubt at the last look before it is sent again: its new status is no status of a send in doubt', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const message = outboundMessage(phone, 'e-0:0', 'Sent again ✓');
      await queueOutbound(store(), phone, [message]);
      const first = await claimOf(store(), 'outbox', phone, t0);
      const marks = { inDoubtSince: t0, inDoubtUntil: t0 + 30_000 };
      await store().deferOutbound(first, message.id, 1, t0 + 30_000, marks);
      // Its grace is over and no status came: the sender sends it again.
      const again = await claimOf(store(), 'outbox', phone, t0 + 30_000);
      expect(again.view.message).toEqual({ ...message, attempts: 1, ...marks });
      expect(await store().readOutbox(again, t0 + 30_000, leaseMs)).toEqual({
        message: { ...message, attempts: 1 },
        sentSmsId: null,
      });
      expect(await store().pendingOutbound(keyOf(phone))).toEqual([{ ...message, attempts: 1 }]);
      // The status of that send overtakes its record: not one of a send in doubt.
      await store().ingest(
        'n-1',
        [statusWithBody('s-1', phone, 'sms-1', message.body)],
        t0 + 30_001,
      );
      expect(await store().inDoubtHeardAt(location)).toBeNull();
    });
  });

  describe('a live claim before and during a request', () => {
    it('reads the head only under a claim that still holds the outbox, and renews its lease', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const message = outboundMessage(phone, 'e-0:0');
      await queueOutbound(store(), phone, [message]);
      const claim = await claimOf(store(), 'outbox', phone, t0);
      // Renewed at t0 + 20 s: not claimable when the first lease would have ended.
      expect(await store().readOutbox(claim, t0 + 20_000, leaseMs)).toEqual({
        message,
        sentSmsId: null,
      });
      expect(await store().claim('outbox', claim.partition, leaseMs, t0 + leaseMs)).toBeNull();
      // A holder that stops renewing is taken over once the renewed lease ends…
      const taken = await claimOf(store(), 'outbox', phone, t0 + 20_000 + leaseMs);
      expect(taken.view.takenOver).toBe(true);
      // …and then reads nothing, renews nothing, and is told so.
      expect(await store().readOutbox(claim, t0 + 20_000 + leaseMs, leaseMs)).toEqual({
        message: null,
        sentSmsId: null,
        lostLock: true,
      });
      expect(await store().renewOutbox(claim, t0 + 20_000 + leaseMs, leaseMs)).toEqual({
        ok: false,
        reason: 'lost-lock',
      });
      // Without a lease to renew, readOutbox reads as always.
      expect(await store().readOutbox(claim, t0 + 20_000 + leaseMs)).toEqual({
        message,
        sentSmsId: null,
      });
    });

    it('renews the lease of a claim still held, so that nobody takes a live holder over', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await queueOutbound(store(), phone, [outboundMessage(phone, 'e-0:0')]);
      const claim = await claimOf(store(), 'outbox', phone, t0);
      for (const at of [t0 + 10_000, t0 + 20_000, t0 + 30_000, t0 + 40_000]) {
        expect(await store().renewOutbox(claim, at, leaseMs)).toEqual({ ok: true });
        expect(
          await store().claim('outbox', claim.partition, leaseMs, at + leaseMs - 1),
        ).toBeNull();
      }
      expect(await store().nextReadyAt('outbox', claim.partition)).toBe(t0 + 40_000 + leaseMs);
    });
  });
}
