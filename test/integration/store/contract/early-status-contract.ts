import { describe, expect, it, vi } from 'vitest';
import type { QueueName, Store } from '../../../../src/store/store.ts';
import {
  claimOf,
  claimQueued,
  keyOf,
  leaseMs,
  outboundMessage,
  phonesInDistinctPartitions,
  queueOutbound,
  recordedSms,
  replyEvent,
  sentRecord,
  statusEvent,
  statusItem,
  t0,
  untilHeard,
} from './fixtures.ts';

/**
 * The service's status webhook can overtake its answer to POST /sms: a status then reaches
 * `ingest` before the sender's `recordSent` wrote the run that sent the sms. Such a status waits
 * until `recordSent`, which hands it to the mailbox with that run (the worker drops a status it
 * cannot tie to the active run).
 */
export function earlyStatusContract(store: () => Store): void {
  describe('a status that comes before recordSent', () => {
    it('stays out of the mailbox and the ready set, but moves the message record', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await claimQueued(store(), phone, 'e-0:0');
      expect(
        await store().ingest('n-1', [statusItem('s-1', phone, 'sms-1', 'errored')], t0),
      ).toEqual({ duplicate: false, pushed: 0 });
      expect(await store().pendingEvents(keyOf(phone))).toEqual([]);
      expect(await store().claim('inbox', store().partitionOf(phone), leaseMs, t0)).toBeNull();
      const message = await store().getMessage(phone, 'sms-1');
      expect(message).toMatchObject({ status: 'errored', statusReason: 'errored-reason' });
      expect(message?.runId).toBeUndefined();
    });

    it('is handed to the mailbox by recordSent, with the run, and the inbox becomes claimable', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const outbox = await claimQueued(store(), phone, 'e-0:0');
      await store().ingest('n-1', [statusItem('s-1', phone, 'sms-1', 'errored')], t0);
      expect(
        await store().recordSent(outbox, 'e-0:0', sentRecord(phone, 'sms-1', 'e-0:0'), t0 + 1),
      ).toEqual({ ok: true, nextOutbox: { message: null, sentSmsId: null }, released: true });

      const moved = { ...statusEvent('s-1', phone, 'sms-1', 'errored'), runId: 'run-1' };
      expect(await store().pendingEvents(keyOf(phone))).toEqual([moved]);
      const inbox = await claimOf(store(), 'inbox', phone, t0 + 1);
      expect((await store().readInbox(inbox)).next).toEqual(moved);
      expect(await store().getMessage(phone, 'sms-1')).toMatchObject({
        status: 'errored',
        runId: 'run-1',
        outboxId: 'e-0:0',
      });
      expect(await store().pendingOutbound(keyOf(phone))).toEqual([]);
    });

    it('goes after the events already in the mailbox, and before later ones', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const outbox = await claimQueued(store(), phone, 'e-0:0');
      await store().ingest('n-1', [{ event: replyEvent('r-1', phone) }], t0);
      // One notification with a reply and an early status: only the reply is pushed.
      expect(
        await store().ingest(
          'n-2',
          [statusItem('s-1', phone, 'sms-1', 'sent'), { event: replyEvent('r-2', phone) }],
          t0,
        ),
      ).toEqual({ duplicate: false, pushed: 1 });
      await store().recordSent(outbox, 'e-0:0', sentRecord(phone, 'sms-1', 'e-0:0'), t0);
      await store().ingest('n-3', [{ event: replyEvent('r-3', phone) }], t0);

      const events = await store().pendingEvents(keyOf(phone));
      expect(events.map((e) => e.id)).toEqual(['r-1', 'r-2', 's-1', 'r-3']);
      expect(events[2]).toMatchObject({ kind: 'status', smsId: 'sms-1', runId: 'run-1' });
    });

    it('comes out in arrival order when there are several (sent, then delivered)', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const outbox = await claimQueued(store(), phone, 'e-0:0');
      await store().ingest('n-1', [statusItem('s-1', phone, 'sms-1', 'sent')], t0);
      await store().ingest('n-2', [statusItem('s-2', phone, 'sms-1', 'delivered')], t0 + 1);
      await store().recordSent(outbox, 'e-0:0', sentRecord(phone, 'sms-1', 'e-0:0'), t0 + 2);

      expect(await store().pendingEvents(keyOf(phone))).toEqual([
        { ...statusEvent('s-1', phone, 'sms-1', 'sent'), runId: 'run-1' },
        { ...statusEvent('s-2', phone, 'sms-1', 'delivered'), runId: 'run-1' },
      ]);
      expect(await store().getMessage(phone, 'sms-1')).toMatchObject({
        status: 'delivered',
        runId: 'run-1',
      });
    });

    it('is still ignored when it is a duplicate or goes backward', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const outbox = await claimQueued(store(), phone, 'e-0:0');
      await store().ingest('n-1', [statusItem('s-1', phone, 'sms-1', 'delivered')], t0);
      const ignored = [
        await store().ingest('n-1', [statusItem('s-1', phone, 'sms-1', 'delivered')], t0),
        await store().ingest('n-2', [statusItem('s-2', phone, 'sms-1', 'sent')], t0),
        await store().ingest('n-3', [statusItem('s-3', phone, 'sms-1', 'delivered')], t0),
        await store().ingest('n-4', [statusItem('s-4', phone, 'sms-1', 'errored')], t0),
      ];
      expect(ignored.map((r) => r.pushed)).toEqual([0, 0, 0, 0]);
      await store().recordSent(outbox, 'e-0:0', sentRecord(phone, 'sms-1', 'e-0:0'), t0);
      expect((await store().pendingEvents(keyOf(phone))).map((e) => e.id)).toEqual(['s-1']);

      // After recordSent, the same holds for statuses that go straight to the mailbox.
      expect(
        await store().ingest('n-5', [statusItem('s-5', phone, 'sms-1', 'sent')], t0),
      ).toMatchObject({ pushed: 0 });
      expect((await store().pendingEvents(keyOf(phone))).map((e) => e.id)).toEqual(['s-1']);
      expect(await store().getMessage(phone, 'sms-1')).toMatchObject({
        status: 'delivered',
        statusReason: 'delivered-reason',
      });
    });

    it('is handed over by a recordSent whose token lost the lock', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const first = await claimQueued(store(), phone, 'e-0:0');
      await claimOf(store(), 'outbox', phone, t0 + leaseMs);
      await store().ingest('n-1', [statusItem('s-1', phone, 'sms-1', 'errored')], t0 + leaseMs);
      expect(
        await store().recordSent(first, 'e-0:0', sentRecord(phone, 'sms-1', 'e-0:0'), t0 + leaseMs),
      ).toEqual({ ok: false, reason: 'lost-lock' });
      expect(await store().pendingEvents(keyOf(phone))).toEqual([
        { ...statusEvent('s-1', phone, 'sms-1', 'errored'), runId: 'run-1' },
      ]);
      await claimOf(store(), 'inbox', phone, t0 + leaseMs);
    });

    it('is handed over once: recordSent again for the same sms moves nothing more', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const outbox = await claimQueued(store(), phone, 'e-0:0');
      await store().ingest('n-1', [statusItem('s-1', phone, 'sms-1', 'sent')], t0);
      const record = sentRecord(phone, 'sms-1', 'e-0:0');
      await store().recordSent(outbox, 'e-0:0', record, t0);
      await store().recordSent(outbox, 'e-0:0', record, t0);
      expect((await store().pendingEvents(keyOf(phone))).map((e) => e.id)).toEqual(['s-1']);
    });

    it('announces the inbox of the partition when recordSent moved statuses, and only then', async () => {
      const [phone = '', other = ''] = phonesInDistinctPartitions(store(), 2);
      const partition = store().partitionOf(phone);
      await queueOutbound(store(), phone, [
        outboundMessage(phone, 'e-0:0'),
        outboundMessage(phone, 'e-0:1'),
      ]);
      const outbox = await claimOf(store(), 'outbox', phone, t0);
      const heard: [QueueName, number][] = [];
      const unsubscribe = store().onReady((queue, p) => heard.push([queue, p]));
      // Heard once the subscription is active, and again after a step: all before it is in.
      const heardFromOther = () => untilHeard(store(), heard, store().partitionOf(other));
      await heardFromOther();
      heard.length = 0;

      // Nothing came early for sms-1; sms-2's status waits without an announcement.
      await store().recordSent(outbox, 'e-0:0', sentRecord(phone, 'sms-1', 'e-0:0'), t0);
      await store().ingest('n-1', [statusItem('s-2', phone, 'sms-2', 'sent')], t0);
      await heardFromOther();
      expect(heard).not.toContainEqual(['inbox', partition]);

      await store().recordSent(outbox, 'e-0:1', sentRecord(phone, 'sms-2', 'e-0:1'), t0);
      await vi.waitFor(() => expect(heard).toContainEqual(['inbox', partition]));
      unsubscribe();
    });
  });

  describe('a status that comes after recordSent', () => {
    it('goes straight to the mailbox, as before, and the inbox becomes claimable', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await recordedSms(store(), phone, 'sms-1');
      expect(
        await store().ingest('n-1', [statusItem('s-1', phone, 'sms-1', 'delivered')], t0),
      ).toEqual({ duplicate: false, pushed: 1 });
      expect(await store().pendingEvents(keyOf(phone))).toEqual([
        statusEvent('s-1', phone, 'sms-1', 'delivered'),
      ]);
      const inbox = await claimOf(store(), 'inbox', phone, t0);
      expect((await store().readInbox(inbox)).next).toMatchObject({ id: 's-1' });
      expect(await store().getMessage(phone, 'sms-1')).toMatchObject({
        status: 'delivered',
        runId: 'run-1',
      });
    });
  });
}
