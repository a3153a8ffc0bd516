import { describe, expect, it } from 'vitest';
import { droppedSmsId, type OutboundMessage } from '../../../../src/store/records.ts';
import type { Store } from '../../../../src/store/store.ts';
import {
  claimOf,
  keyOf,
  leaseMs,
  outboundMessage,
  phonesInDistinctPartitions,
  queueOutbound,
  replyEvent,
  sentRecord,
  t0,
} from './fixtures.ts';

const guarded = (phone: string, id: string, max = 2): OutboundMessage => ({
  ...outboundMessage(phone, id),
  loopGuard: { max, windowMs: 60_000 },
});

/** Ingests a reply and commits it with a suppression change and the given messages. */
async function commitSuppression(
  store: Store,
  phone: string,
  suppression: 'add' | 'remove',
  outbound: OutboundMessage[],
  now: number,
  claimOutbox = false,
) {
  const eventId = `stop-${now}`;
  await store.ingest(`n-${eventId}`, [{ event: replyEvent(eventId, phone) }], now);
  const claim = await claimOf(store, 'inbox', phone, now);
  const result = await store.commitStep(
    claim,
    {
      eventId,
      expectedSeq: claim.view.record?.seq ?? 0,
      record: null,
      outbound,
      suppression,
      ...(claimOutbox && { claimOutbox: { leaseMs } }),
    },
    now,
  );
  expect(result.ok).toBe(true);
  return result;
}

export function suppressionContract(store: () => Store): void {
  describe('suppression and the loop guard, checked when the sender reads the outbox', () => {
    it('drops what was queued before an opt-out, records each as suppressed, and sends the confirmation', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const before = [outboundMessage(phone, 'e-0:0'), outboundMessage(phone, 'e-0:1')];
      await queueOutbound(store(), phone, before);
      expect(await store().isSuppressed(keyOf(phone))).toBe(false);

      const confirmation = {
        ...outboundMessage(phone, 'stop:0', 'You will get no more messages'),
        compliance: 'opt-out' as const,
      };
      await commitSuppression(store(), phone, 'add', [confirmation], t0 + 1);
      expect(await store().isSuppressed(keyOf(phone))).toBe(true);

      const claim = await claimOf(store(), 'outbox', phone, t0 + 2);
      expect(claim.view).toEqual({
        message: confirmation,
        sentSmsId: null,
        dropped: [
          { id: 'e-0:0', reason: 'suppressed', botId: 'survey' },
          { id: 'e-0:1', reason: 'suppressed', botId: 'survey' },
        ],
      });
      expect(await store().getMessage(phone, droppedSmsId('e-0:0'))).toMatchObject({
        status: 'errored',
        statusReason: 'suppressed',
        outboxId: 'e-0:0',
        runId: 'run-1',
      });
      expect((await store().pendingOutbound(keyOf(phone))).map((m) => m.id)).toEqual(['stop:0']);

      // The confirmation went; what a bot queues afterwards is dropped too, help text included.
      const sent = await store().recordSent(
        claim,
        'stop:0',
        sentRecord(phone, 'sms-stop', 'stop:0'),
        t0 + 3,
      );
      expect(sent).toMatchObject({ ok: true, released: true });
      const help = { ...outboundMessage(phone, 'e-9:1'), compliance: 'help' as const };
      await queueOutbound(store(), phone, [outboundMessage(phone, 'e-9:0'), help], t0 + 4);
      const later = await claimOf(store(), 'outbox', phone, t0 + 5);
      expect(later.view.message).toBeNull();
      expect(later.view.dropped?.map((d) => d.id)).toEqual(['e-9:0', 'e-9:1']);
      await store().release(later, t0 + 5);
      expect(await store().pendingOutbound(keyOf(phone))).toEqual([]);
    });

    it('sends again after an opt-in, and drops from readOutbox and a commit-claimed outbox alike', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await commitSuppression(store(), phone, 'add', [], t0);
      const queued = await commitSuppression(
        store(),
        phone,
        'add',
        [outboundMessage(phone, 'bot:0')],
        t0 + 1,
        true,
      );
      expect(queued.ok && queued.outbox?.view).toEqual({
        message: null,
        sentSmsId: null,
        dropped: [{ id: 'bot:0', reason: 'suppressed', botId: 'survey' }],
      });
      if (queued.ok && queued.outbox) await store().release(queued.outbox, t0 + 1);

      const back = {
        ...outboundMessage(phone, 'start:0', 'Welcome back'),
        compliance: 'opt-in' as const,
      };
      await commitSuppression(store(), phone, 'remove', [back], t0 + 2);
      expect(await store().isSuppressed(keyOf(phone))).toBe(false);
      const claim = await claimOf(store(), 'outbox', phone, t0 + 3);
      expect(await store().readOutbox(claim, t0 + 3)).toEqual({ message: back, sentSmsId: null });
    });

    it('drops past the loop guard within its window, exempts the help text and the opt-out confirmation, and sends again after the window', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const help = { ...guarded(phone, 'e-0:3'), compliance: 'help' as const };
      const stop = { ...guarded(phone, 'e-0:4'), compliance: 'opt-out' as const };
      const messages = [
        guarded(phone, 'e-0:0'),
        guarded(phone, 'e-0:1'),
        guarded(phone, 'e-0:2'),
        help,
        stop,
      ];
      await queueOutbound(store(), phone, messages);
      const claim = await claimOf(store(), 'outbox', phone, t0);
      const send = (id: string, at: number) =>
        store().recordSent(claim, id, sentRecord(phone, `sms-${id}`, id), at);
      expect(await send('e-0:0', t0 + 1)).toMatchObject({
        nextOutbox: { message: { id: 'e-0:1' } },
      });
      // Two sent within the window: the third is dropped, the help text and confirmation are not.
      const third = await send('e-0:1', t0 + 2);
      expect(third).toMatchObject({
        ok: true,
        nextOutbox: { message: help, dropped: [{ id: 'e-0:2', reason: 'loop_guard' }] },
      });
      expect(await store().getMessage(phone, droppedSmsId('e-0:2'))).toMatchObject({
        statusReason: 'loop_guard',
      });
      expect(await send('e-0:3', t0 + 3)).toMatchObject({ nextOutbox: { message: stop } });
      expect(await send('e-0:4', t0 + 4)).toMatchObject({ ok: true, released: true });

      // Within the window a new message is dropped; once it passed, it goes.
      await queueOutbound(store(), phone, [guarded(phone, 'e-1:0')], t0 + 30_000);
      const inWindow = await claimOf(store(), 'outbox', phone, t0 + 30_000);
      expect(inWindow.view).toMatchObject({ message: null, dropped: [{ id: 'e-1:0' }] });
      await store().release(inWindow, t0 + 30_000);
      await queueOutbound(store(), phone, [guarded(phone, 'e-2:0')], t0 + 70_000);
      const afterWindow = await claimOf(store(), 'outbox', phone, t0 + 70_000);
      expect(afterWindow.view).toEqual({ message: guarded(phone, 'e-2:0'), sentSmsId: null });
    });

    it('lets messages that are not held pass those held for quiet hours, each group in its order', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const held = (id: string) => ({ ...outboundMessage(phone, id), holdUntil: t0 + 3_600_000 });
      const messages = [
        held('h-1'),
        held('h-2'),
        outboundMessage(phone, 'a-1'),
        held('h-3'),
        outboundMessage(phone, 'a-2'),
      ];
      await queueOutbound(store(), phone, messages);
      const claim = await claimOf(store(), 'outbox', phone, t0);
      expect(claim.view.message?.id).toBe('a-1');
      const sent = await store().recordSent(
        claim,
        'a-1',
        sentRecord(phone, 's-a-1', 'a-1'),
        t0 + 1,
      );
      expect(sent).toMatchObject({ nextOutbox: { message: { id: 'a-2' } } });
      const last = await store().recordSent(
        claim,
        'a-2',
        sentRecord(phone, 's-a-2', 'a-2'),
        t0 + 2,
      );
      // Only held ones are left: the head is answered, for the sender to hold it.
      expect(last).toMatchObject({ nextOutbox: { message: { id: 'h-1' } } });
      expect((await store().pendingOutbound(keyOf(phone))).map((m) => m.id)).toEqual([
        'h-1',
        'h-2',
        'h-3',
      ]);
      // Once the quiet hours are over, they go in that order.
      expect(await store().readOutbox(claim, t0 + 3_600_000)).toMatchObject({
        message: { id: 'h-1' },
      });
    });

    it('makes an outbox waiting for its held head ready at once for a message that may go now', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const holdUntil = t0 + 3_600_000;
      await queueOutbound(store(), phone, [{ ...outboundMessage(phone, 'h-1'), holdUntil }]);
      const claim = await claimOf(store(), 'outbox', phone, t0);
      expect(claim.view.message?.id).toBe('h-1');
      expect(await store().deferOutbound(claim, 'h-1', 0, holdUntil)).toEqual({ ok: true });
      expect(await store().claim('outbox', claim.partition, leaseMs, t0 + 1)).toBeNull();
      // Another held message changes nothing; one that may go now makes it ready.
      await queueOutbound(
        store(),
        phone,
        [{ ...outboundMessage(phone, 'h-2'), holdUntil }],
        t0 + 2,
      );
      expect(await store().claim('outbox', claim.partition, leaseMs, t0 + 3)).toBeNull();
      await queueOutbound(store(), phone, [outboundMessage(phone, 'a-1')], t0 + 4);
      const again = await claimOf(store(), 'outbox', phone, t0 + 5);
      expect(again.view.message?.id).toBe('a-1');
    });

    it('never drops a contact update', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await commitSuppression(store(), phone, 'add', [], t0);
      const contact = {
        ...outboundMessage(phone, 'c:0', ''),
        contact: { group: 12, fields: { contactSubscribed: false } },
      };
      await queueOutbound(store(), phone, [contact], t0 + 1);
      const claim = await claimOf(store(), 'outbox', phone, t0 + 2);
      expect(claim.view).toEqual({ message: contact, sentSmsId: null });
    });
  });
}
