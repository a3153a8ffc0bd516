import { describe, expect, it } from 'vitest';
import type { Store } from '../../../../src/store/store.ts';
import { storeLimits } from '../../../../src/store/store-limits.ts';
import {
  claimOf,
  claimStartAndReply,
  conversationRecord,
  keyOf,
  leaseMs,
  outboundMessage,
  phonesInDistinctPartitions,
  queueOutbound,
  recordedSms,
  replyEvent,
  sentRecord,
  startEvent,
  statusEvent,
  statusItem,
  t0,
} from './fixtures.ts';

export function commitContract(store: () => Store): void {
  describe('commitStep', () => {
    it('writes the record, pops the head, queues the outbound, logs the event and returns the next view', async () => {
      const { phone, claim } = await claimStartAndReply(store());
      expect(await store().readInbox(claim)).toEqual({
        record: null,
        next: startEvent('e-1', phone),
        origin: null,
      });

      const record = conversationRecord(phone, 1);
      const outbound = [outboundMessage(phone, 'e-1:0'), outboundMessage(phone, 'e-1:1', 'Second')];
      const result = await store().commitStep(
        claim,
        { eventId: 'e-1', expectedSeq: 0, record, outbound },
        t0 + 5,
      );

      expect(result).toEqual({
        ok: true,
        next: { record, next: replyEvent('e-2', phone), origin: null },
        released: false,
      });
      expect(await store().getConversation(keyOf(phone))).toEqual(record);
      expect((await store().pendingEvents(keyOf(phone))).map((e) => e.id)).toEqual(['e-2']);
      expect(await store().pendingOutbound(keyOf(phone))).toEqual(outbound);
      expect(await store().listApplied(keyOf(phone))).toEqual(['e-1']);
      await claimOf(store(), 'outbox', phone, t0 + 5);
    });

    it('stores a lone surrogate a bot left in its context or a message as U+FFFD, never failing', async () => {
      const { phone, claim } = await claimStartAndReply(store());
      const cut = 'Bravo 🎉'.slice(0, -1);
      const base = conversationRecord(phone, 1);
      const record = { ...base, snapshot: { value: 'q1', context: { note: cut } } };
      const outbound = [outboundMessage(phone, 'e-1:0', cut)];
      const result = await store().commitStep(
        claim,
        { eventId: 'e-1', expectedSeq: 0, record, outbound },
        t0 + 5,
      );
      expect(result.ok).toBe(true);
      const stored = await store().getConversation(keyOf(phone));
      expect(stored?.snapshot).toEqual({ value: 'q1', context: { note: 'Bravo \uFFFD' } });
      expect((await store().pendingOutbound(keyOf(phone)))[0]?.body).toBe('Bravo \uFFFD');
    });

    it('keeps the record when the step gives none, and still checks its seq', async () => {
      const { phone, claim } = await claimStartAndReply(store());
      const record = conversationRecord(phone, 1);
      await store().commitStep(claim, { eventId: 'e-1', expectedSeq: 0, record, outbound: [] }, t0);
      const stale = await store().commitStep(
        claim,
        { eventId: 'e-2', expectedSeq: 0, record: null, outbound: [] },
        t0,
      );
      expect(stale).toEqual({ ok: false, reason: 'stale' });
      const kept = await store().commitStep(
        claim,
        { eventId: 'e-2', expectedSeq: 1, record: null, outbound: [] },
        t0,
      );
      expect(kept).toEqual({
        ok: true,
        next: { record, next: null, origin: null },
        released: true,
      });
    });

    it('refuses a wrong event id or seq as stale and a wrong token as lost-lock, changing nothing', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await store().ingest('n-1', [{ event: startEvent('e-1', phone) }], t0);
      const claim = await claimOf(store(), 'inbox', phone, t0);
      const step = {
        eventId: 'e-1',
        expectedSeq: 0,
        record: conversationRecord(phone, 1),
        outbound: [outboundMessage(phone, 'e-1:0')],
      };

      expect(await store().commitStep(claim, { ...step, eventId: 'e-0' }, t0)).toEqual({
        ok: false,
        reason: 'stale',
      });
      const wrongSeq = { ...step, expectedSeq: 1, record: conversationRecord(phone, 2) };
      expect(await store().commitStep(claim, wrongSeq, t0)).toEqual({ ok: false, reason: 'stale' });
      expect(await store().commitStep({ ...claim, token: 'not-mine' }, step, t0)).toEqual({
        ok: false,
        reason: 'lost-lock',
      });

      expect(await store().getConversation(keyOf(phone))).toBeNull();
      expect(await store().pendingEvents(keyOf(phone))).toHaveLength(1);
      expect(await store().pendingOutbound(keyOf(phone))).toEqual([]);
      expect(await store().listApplied(keyOf(phone))).toEqual([]);
    });

    it('rejects a record whose seq is not expectedSeq + 1', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await store().ingest('n-1', [{ event: startEvent('e-1', phone) }], t0);
      const claim = await claimOf(store(), 'inbox', phone, t0);
      const step = {
        eventId: 'e-1',
        expectedSeq: 0,
        record: conversationRecord(phone, 5),
        outbound: [],
      };
      await expect(store().commitStep(claim, step, t0)).rejects.toThrow(TypeError);
    });

    it('reads, for a reply, the record of the message it answers', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await queueOutbound(store(), phone, [outboundMessage(phone, 'e-0:0')]);
      const outbox = await claimOf(store(), 'outbox', phone, t0);
      const sent = sentRecord(phone, 'sms-42', 'e-0:0');
      await store().recordSent(outbox, 'e-0:0', sent, t0);

      await store().ingest(
        'n-1',
        [
          { event: replyEvent('e-1', phone, 'sms-42') },
          { event: replyEvent('e-2', phone, 'sms-x') },
        ],
        t0,
      );
      const claim = await claimOf(store(), 'inbox', phone, t0);
      const view = await store().readInbox(claim);
      expect(view).toMatchObject({ record: { seq: 1 }, next: { id: 'e-1' }, origin: sent });
      // The claim came with the same view, origin included.
      expect(claim.view).toEqual(view);
      const result = await store().commitStep(
        claim,
        { eventId: 'e-1', expectedSeq: 1, record: null, outbound: [] },
        t0,
      );
      expect(result).toMatchObject({ ok: true, next: { next: { id: 'e-2' }, origin: null } });
    });

    it('reads, for a status, the record of the message it reports on', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await recordedSms(store(), phone, 'sms-7');
      await store().ingest('n-1', [statusItem('s-1', phone, 'sms-7', 'sent')], t0);
      await store().ingest('n-2', [statusItem('s-2', phone, 'sms-7', 'delivered')], t0);
      const claim = await claimOf(store(), 'inbox', phone, t0);
      const about = { smsId: 'sms-7', runId: 'run-1', outboxId: 'e-sms-7:0' };
      expect(claim.view).toMatchObject({ next: { id: 's-1' }, origin: about });
      expect(await store().readInbox(claim)).toEqual(claim.view);
      const result = await store().commitStep(
        claim,
        { eventId: 's-1', expectedSeq: claim.view.record?.seq ?? 0, record: null, outbound: [] },
        t0,
      );
      expect(result).toMatchObject({ ok: true, next: { next: { id: 's-2' }, origin: about } });
    });

    it('caps the applied log, keeping the newest ids oldest first', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const count = storeLimits.appliedLogCap + 3;
      const events = Array.from({ length: count }, (_, i) => ({
        event: replyEvent(`e-${i}`, phone),
      }));
      await store().ingest('n-1', events, t0);
      const claim = await claimOf(store(), 'inbox', phone, t0);
      for (let i = 0; i < count; i++) {
        await store().commitStep(
          claim,
          {
            eventId: `e-${i}`,
            expectedSeq: i,
            record: conversationRecord(phone, i + 1),
            outbound: [],
          },
          t0,
        );
      }
      const applied = await store().listApplied(keyOf(phone));
      expect(applied).toHaveLength(storeLimits.appliedLogCap);
      expect([applied[0], applied.at(-1)]).toEqual(['e-3', `e-${count - 1}`]);
    });

    it('logs ids of any characters, and knows each one redelivered', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      // Plain ids around ones JSON escapes (quote, backslash, slash) or that are not ASCII.
      const ids = ['e-0', 'e/1', 'e"2', 'e\\3', 'é:4', 'e.5', 'e,"6', 'e_7'];
      await store().ingest(
        'n-any',
        ids.map((id) => ({ event: replyEvent(id, phone) })),
        t0,
      );
      const claim = await claimOf(store(), 'inbox', phone, t0);
      for (const [i, id] of ids.entries()) {
        const step = {
          eventId: id,
          expectedSeq: i,
          record: conversationRecord(phone, i + 1),
          outbound: [],
        };
        expect((await store().commitStep(claim, step, t0 + i)).ok).toBe(true);
      }
      expect(await store().listApplied(keyOf(phone))).toEqual(ids);
      for (const id of [...ids, 'e-0']) {
        expect(
          await store().ingest(`n-again-${id}`, [{ event: replyEvent(id, phone) }], t0 + 20),
        ).toEqual({ duplicate: true, pushed: 0 });
      }
      expect(
        (await store().ingest('n-new', [{ event: replyEvent('e-8', phone) }], t0 + 20)).duplicate,
      ).toBe(false);
    });

    it('bounds the applied log by time, logs no status, and logs an event of no record', async () => {
      const [phone = '', bare = ''] = phonesInDistinctPartitions(store(), 2);
      const window = storeLimits.appliedWindowMs;
      await store().ingest(
        'n-time',
        [
          { event: replyEvent('e-old', phone) },
          { event: statusEvent('e-status', phone, 'sms-applied', 'sent') },
          { event: replyEvent('e-new', phone) },
        ],
        t0,
      );
      const claim = await claimOf(store(), 'inbox', phone, t0);
      const commit = (eventId: string, seq: number, now: number) =>
        store().commitStep(
          claim,
          { eventId, expectedSeq: seq, record: conversationRecord(phone, seq + 1), outbound: [] },
          now,
        );
      expect((await commit('e-old', 0, t0)).ok).toBe(true);
      expect((await commit('e-status', 1, t0 + 1)).ok).toBe(true);
      expect(await store().listApplied(keyOf(phone))).toEqual(['e-old']);
      expect((await commit('e-new', 2, t0 + 2 + window)).ok).toBe(true);
      expect(await store().listApplied(keyOf(phone))).toEqual(['e-new']);

      await store().ingest('n-bare', [{ event: replyEvent('e-bare', bare) }], t0);
      const bareClaim = await claimOf(store(), 'inbox', bare, t0);
      const step = { eventId: 'e-bare', expectedSeq: 0, record: null, outbound: [] };
      expect((await store().commitStep(bareClaim, step, t0)).ok).toBe(true);
      expect(await store().listApplied(keyOf(bare))).toEqual(['e-bare']);
      // The log knows it: a redelivery is not taken again.
      expect(await store().ingest('n-bare', [{ event: replyEvent('e-bare', bare) }], t0)).toEqual({
        duplicate: true,
        pushed: 0,
      });
    });

    it('claims an idle outbox for the committer when asked: others cannot claim it, and it sends as any claim', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await store().ingest('n-1', [{ event: startEvent('e-1', phone) }], t0);
      const claim = await claimOf(store(), 'inbox', phone, t0);
      const outbound = [outboundMessage(phone, 'e-1:0'), outboundMessage(phone, 'e-1:1', 'Second')];
      const result = await store().commitStep(
        claim,
        { eventId: 'e-1', expectedSeq: 0, record: null, outbound, claimOutbox: { leaseMs } },
        t0,
      );
      if (!result.ok || !result.outbox)
        throw new Error(`no outbox claim: ${JSON.stringify(result)}`);
      const handed = result.outbox;
      expect(handed).toMatchObject({
        queue: 'outbox',
        partition: claim.partition,
        ...keyOf(phone),
      });
      expect(handed.token).not.toBe(claim.token);
      expect(handed.view).toEqual({ message: outbound[0], sentSmsId: null });
      // Held for its lease: nobody else claims it before, anybody after.
      expect(await store().claim('outbox', claim.partition, leaseMs, t0 + leaseMs - 1)).toBeNull();

      const first = await store().recordSent(
        handed,
        'e-1:0',
        sentRecord(phone, 'sms-1', 'e-1:0'),
        t0 + 1,
      );
      expect(first).toMatchObject({
        ok: true,
        nextOutbox: { message: outbound[1] },
        released: false,
      });
      const last = await store().recordSent(
        handed,
        'e-1:1',
        sentRecord(phone, 'sms-2', 'e-1:1'),
        t0 + 2,
      );
      expect(last).toMatchObject({ ok: true, released: true });
      expect(await store().pendingOutbound(keyOf(phone))).toEqual([]);
    });

    it('leaves to the queue an outbox that already had messages or a holder, and does not claim without messages', async () => {
      const [busy = '', held = '', quiet = ''] = phonesInDistinctPartitions(store(), 3);
      // busy: a message is already waiting (perhaps deferred to later): not claimed by the commit.
      await queueOutbound(store(), busy, [outboundMessage(busy, 'old:0')]);
      // held: a sender holds the outbox (its list emptied, its release not yet done).
      await queueOutbound(store(), held, [outboundMessage(held, 'old:0')]);
      const sender = await claimOf(store(), 'outbox', held, t0);
      const failure = statusItem('send-failed:old:0', held, '', 'errored').event;
      expect(await store().failOutbound(sender, 'old:0', failure, t0)).toEqual({ ok: true });

      for (const phone of [busy, held, quiet]) {
        await store().ingest(`n-${phone}`, [{ event: replyEvent(`r-${phone}`, phone) }], t0);
        const claim = await claimOf(store(), 'inbox', phone, t0);
        const result = await store().commitStep(
          claim,
          {
            // held's mailbox starts with the failure its sender pushed.
            eventId: claim.view.next?.id ?? '',
            expectedSeq: claim.view.record?.seq ?? 0,
            record: null,
            outbound: phone === quiet ? [] : [outboundMessage(phone, `r-${phone}:0`)],
            claimOutbox: { leaseMs },
          },
          t0,
        );
        expect(result).toMatchObject({ ok: true });
        expect(result.ok && result.outbox).toBeFalsy();
      }
      // busy is claimable through the queue as before, its old message first.
      const queued = await claimOf(store(), 'outbox', busy, t0);
      expect(queued.view.message?.id).toBe('old:0');
      expect(await store().claim('outbox', store().partitionOf(quiet), leaseMs, t0)).toBeNull();
    });
  });
}
