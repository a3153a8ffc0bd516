import { describe, expect, it } from 'vitest';
import type { OutboundMessage } from '../../../../src/store/records.ts';
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
  t0,
} from './fixtures.ts';

const guarded = (phone: string, id: string, max = 1): OutboundMessage => ({
  ...outboundMessage(phone, id),
  loopGuard: { max, windowMs: 60_000 },
});

/**
 * The sender's last look with the message it holds (`readOutbox(claim, now, leaseMs,
 * expected)`): a driver may answer from a cheaper look (Redis: `last-look-5.lua`), and must
 * answer what the full read answers whatever changed since the message was handed over.
 */
export function lastLookContract(store: () => Store): void {
  describe('the last look with the message held', () => {
    it('answers the held message and renews the lease when nothing changed', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const message = guarded(phone, 'e-0:0', 3);
      await queueOutbound(store(), phone, [message]);
      const claim = await claimOf(store(), 'outbox', phone, t0);
      expect(await store().readOutbox(claim, t0 + 20_000, leaseMs, message)).toEqual({
        message,
        sentSmsId: null,
      });
      // Renewed at t0 + 20 s: not claimable when the first lease would have ended, then it is.
      expect(await store().claim('outbox', claim.partition, leaseMs, t0 + leaseMs)).toBeNull();
      const taken = await claimOf(store(), 'outbox', phone, t0 + 20_000 + leaseMs);
      expect(taken.view.takenOver).toBe(true);
      expect(await store().readOutbox(claim, t0 + 20_000 + leaseMs, leaseMs, message)).toEqual({
        message: null,
        sentSmsId: null,
        lostLock: true,
      });
    });

    it('drops the message when the phone opted out after it was handed over', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const message = outboundMessage(phone, 'e-0:0');
      await queueOutbound(store(), phone, [message]);
      const claim = await claimOf(store(), 'outbox', phone, t0);
      await store().addSuppressions(location, [{ phone, at: t0 + 1 }], 'api');
      expect(await store().readOutbox(claim, t0 + 2, leaseMs, message)).toMatchObject({
        message: null,
        dropped: [{ id: 'e-0:0', reason: 'suppressed' }],
      });
      expect(await store().pendingOutbound(keyOf(phone))).toEqual([]);
    });

    it('still sends the opt-out confirmation to a suppressed phone', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const stop = { ...outboundMessage(phone, 'stop:0'), compliance: 'opt-out' as const };
      await queueOutbound(store(), phone, [stop]);
      const claim = await claimOf(store(), 'outbox', phone, t0);
      await store().addSuppressions(location, [{ phone, at: t0 + 1 }], 'api');
      expect(await store().readOutbox(claim, t0 + 2, leaseMs, stop)).toEqual({
        message: stop,
        sentSmsId: null,
      });
    });

    it('answers a guarded message under its guard, and a help text past it', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const first = guarded(phone, 'e-0:0');
      const help = { ...guarded(phone, 'e-0:1'), compliance: 'help' as const };
      const roomy = guarded(phone, 'e-0:2', 3);
      await queueOutbound(store(), phone, [first]);
      const claim = await claimOf(store(), 'outbox', phone, t0);
      expect(
        await store().recordSent(claim, first.id, sentRecord(phone, 'sms-0', first.id), t0 + 1),
      ).toMatchObject({ ok: true, released: true });
      // One send counted: a guard of 1 is reached, but not for the help text, nor a guard of 3.
      await queueOutbound(store(), phone, [help, roomy], t0 + 2);
      const again = await claimOf(store(), 'outbox', phone, t0 + 2);
      expect(await store().readOutbox(again, t0 + 3, leaseMs, help)).toEqual({
        message: help,
        sentSmsId: null,
      });
      expect(
        await store().recordSent(again, help.id, sentRecord(phone, 'sms-1', help.id), t0 + 4),
      ).toMatchObject({ ok: true, nextOutbox: { message: roomy } });
      expect(await store().readOutbox(again, t0 + 5, leaseMs, roomy)).toEqual({
        message: roomy,
        sentSmsId: null,
      });
    });

    it('answers the head as it is when it is not the message held', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const head = outboundMessage(phone, 'e-0:0', 'First');
      const later = outboundMessage(phone, 'e-0:1', 'Second');
      await queueOutbound(store(), phone, [head, later]);
      const claim = await claimOf(store(), 'outbox', phone, t0);
      expect(await store().readOutbox(claim, t0 + 1, leaseMs, later)).toEqual({
        message: head,
        sentSmsId: null,
      });
      // An id that is a prefix of the head's is not the head.
      const prefix = { ...head, id: 'e-0' };
      expect(await store().readOutbox(claim, t0 + 2, leaseMs, prefix)).toEqual({
        message: head,
        sentSmsId: null,
      });
    });

    it('takes a head in doubt out of doubt, as the full read does', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const message = outboundMessage(phone, 'e-0:0');
      await queueOutbound(store(), phone, [message]);
      const first = await claimOf(store(), 'outbox', phone, t0);
      const marks = { inDoubtSince: t0, inDoubtUntil: t0 + 30_000 };
      await store().deferOutbound(first, message.id, 1, t0 + 30_000, marks);
      const again = await claimOf(store(), 'outbox', phone, t0 + 30_000);
      const held = { ...message, attempts: 1, ...marks };
      expect(await store().readOutbox(again, t0 + 30_000, leaseMs, held)).toEqual({
        message: { ...message, attempts: 1 },
        sentSmsId: null,
      });
      expect(await store().pendingOutbound(keyOf(phone))).toEqual([{ ...message, attempts: 1 }]);
    });
  });
}
