import { describe, expect, it } from 'vitest';
import type { ConversationKey } from '../../../../src/store/records.ts';
import type { StepCommit, Store } from '../../../../src/store/store.ts';
import { storeLimits } from '../../../../src/store/store-limits.ts';
import {
  claimOf,
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
  t0,
} from './fixtures.ts';

/**
 * The direct turn (`peekConversation` and `commitDirect`): a reply stepped in the web role's
 * request, under no claim, that never goes onto a mailbox.
 */
export function directCommitContract(store: () => Store): void {
  /**
   * A conversation waiting for a reply, as after a real turn: record seq 1 (run-1), its answer
   * `sms-<phone>` recorded as sent, its mailbox and outbox empty, nobody holding it.
   */
  async function idleConversation(phone: string): Promise<void> {
    await recordedSms(store(), phone, `sms-${phone}`);
    expect(await store().pendingEvents(keyOf(phone))).toEqual([]);
    expect(await store().pendingOutbound(keyOf(phone))).toEqual([]);
  }

  /** The step of reply `eventId` on a conversation at `seq`: the next record and one answer. */
  function replyStep(phone: string, eventId: string, seq: number): StepCommit {
    return {
      eventId,
      expectedSeq: seq,
      record: conversationRecord(phone, seq + 1),
      outbound: [outboundMessage(phone, `${eventId}:0`, `Answer to ${eventId}`)],
    };
  }

  /** What a refused commit must leave as it was. */
  async function written(key: ConversationKey) {
    const [record, outbound, applied, events] = await Promise.all([
      store().getConversation(key),
      store().pendingOutbound(key),
      store().listApplied(key),
      store().pendingEvents(key),
    ]);
    return { record, outbound, applied, events };
  }

  describe('peekConversation', () => {
    it('answers no record and no origin for a conversation never seen', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      expect(await store().peekConversation(keyOf(phone))).toEqual({ record: null, origin: null });
      expect(await store().peekConversation(keyOf(phone), 'sms-nowhere')).toEqual({
        record: null,
        origin: null,
      });
    });

    it('answers the record a commitStep or a commitDirect wrote', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await store().ingest('n-1', [{ event: startEvent('e-1', phone) }], t0);
      const claim = await claimOf(store(), 'inbox', phone, t0);
      const first = conversationRecord(phone, 1);
      const step = { eventId: 'e-1', expectedSeq: 0, record: first, outbound: [] };
      expect(await store().commitStep(claim, step, t0)).toMatchObject({ ok: true, released: true });
      expect(await store().peekConversation(keyOf(phone))).toEqual({ record: first, origin: null });

      const second = conversationRecord(phone, 2);
      const direct = { eventId: 'r-2', expectedSeq: 1, record: second, outbound: [] };
      expect(await store().commitDirect(replyEvent('r-2', phone), direct, t0 + 1)).toEqual({
        ok: true,
      });
      expect(await store().peekConversation(keyOf(phone))).toEqual({
        record: second,
        origin: null,
      });
    });

    it('answers as origin the record of the sms the reply answers, when replyflow sent it', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await recordedSms(store(), phone, 'sms-42');
      const view = await store().peekConversation(keyOf(phone), 'sms-42');
      expect(view?.record).toEqual(conversationRecord(phone, 1));
      const sent = sentRecord(phone, 'sms-42', 'e-sms-42:0');
      expect(view?.origin).toMatchObject({
        smsId: sent.smsId,
        runId: sent.runId,
        outboxId: sent.outboxId,
        phone: sent.phone,
      });
      // An sms replyflow did not send is no origin.
      expect((await store().peekConversation(keyOf(phone), 'sms-other'))?.origin).toBeNull();
    });

    it("answers as origin an older sms's record too, kept out of the conversation's latest messages", async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const count = storeLimits.messagesInRecord + 2;
      for (let i = 0; i < count; i++) await recordedSms(store(), phone, `sms-${i}`, t0 + i);
      for (const i of [0, count - 1]) {
        const view = await store().peekConversation(keyOf(phone), `sms-${i}`);
        expect(view?.record?.seq).toBe(count);
        expect(view?.origin).toMatchObject({
          smsId: `sms-${i}`,
          runId: 'run-1',
          outboxId: `e-sms-${i}:0`,
          phone,
        });
      }
    });

    it('answers null (busy) while an event waits in the mailbox, and while a worker holds the conversation', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await idleConversation(phone);
      await store().ingest('n-1', [{ event: replyEvent('r-1', phone) }], t0 + 1);
      // Waiting, nobody holding it yet.
      expect(await store().peekConversation(keyOf(phone))).toBeNull();
      expect(await store().peekConversation(keyOf(phone), `sms-${phone}`)).toBeNull();
      // Claimed by a worker.
      const claim = await claimOf(store(), 'inbox', phone, t0 + 1);
      expect(await store().peekConversation(keyOf(phone))).toBeNull();
      // Its drain over (the claim released with the last pop), the conversation is idle again.
      const step = replyStep(phone, 'r-1', 1);
      expect(await store().commitStep(claim, step, t0 + 2)).toMatchObject({
        ok: true,
        released: true,
      });
      expect(await store().peekConversation(keyOf(phone))).toEqual({
        record: step.record,
        origin: null,
      });
    });
  });

  // Straight, and as the direct turn does it (create-worker.ts): its peek first, then the
  // commit, which a driver may build on what the peek read.
  for (const peeked of [false, true]) {
    const commitDirect: Store['commitDirect'] = async (event, step, now) => {
      if (peeked && event.kind === 'reply')
        await store().peekConversation(event, event.originSmsId);
      return store().commitDirect(event, step, now);
    };

    describe(peeked ? 'commitDirect after its peek' : 'commitDirect', () => {
      it('on an idle conversation writes the record, queues the outbound, logs the event and puts the reply in the transcript', async () => {
        const [phone = ''] = phonesInDistinctPartitions(store(), 1);
        await idleConversation(phone);
        const event = { ...replyEvent('r-1', phone, `sms-${phone}`), body: 'Direct "é" 🎉' };
        const step = {
          ...replyStep(phone, 'r-1', 1),
          outbound: [outboundMessage(phone, 'r-1:0'), outboundMessage(phone, 'r-1:1', 'Second')],
        };
        expect(await commitDirect(event, step, t0 + 5)).toEqual({ ok: true });

        const key = keyOf(phone);
        expect(await store().getConversation(key)).toEqual(step.record);
        expect(await store().pendingOutbound(key)).toEqual(step.outbound);
        expect((await store().listApplied(key)).at(-1)).toBe('r-1');
        expect(await store().pendingEvents(key)).toEqual([]);
        const transcript = await store().readTranscript(key);
        expect(transcript?.entries.at(-1)).toMatchObject({
          direction: 'in',
          at: event.receivedAt,
          body: 'Direct "é" 🎉',
        });
      });

      it('without claimOutbox leaves the outbox to the queue: claimable by claim("outbox")', async () => {
        const [phone = ''] = phonesInDistinctPartitions(store(), 1);
        await idleConversation(phone);
        const step = replyStep(phone, 'r-1', 1);
        expect(await commitDirect(replyEvent('r-1', phone), step, t0 + 5)).toEqual({
          ok: true,
        });
        const outbox = await claimOf(store(), 'outbox', phone, t0 + 5);
        expect(outbox.view).toEqual({ message: step.outbound[0], sentSmsId: null });
      });

      it('with claimOutbox on an empty outbox answers the outbox claim, first message in view, held from other claimers', async () => {
        const [phone = ''] = phonesInDistinctPartitions(store(), 1);
        await idleConversation(phone);
        const outbound = [outboundMessage(phone, 'r-1:0'), outboundMessage(phone, 'r-1:1', 'Two')];
        const step = { ...replyStep(phone, 'r-1', 1), outbound, claimOutbox: { leaseMs } };
        const result = await commitDirect(replyEvent('r-1', phone), step, t0 + 5);
        expect(result).toEqual({
          ok: true,
          outbox: {
            queue: 'outbox',
            partition: store().partitionOf(phone),
            ...keyOf(phone),
            token: expect.any(String),
            view: { message: outbound[0], sentSmsId: null },
          },
        });
        if (!result.ok || !result.outbox) throw new Error('no outbox claim');
        expect(result.outbox.token).not.toBe('');
        // Held for the committer's sender: nobody else claims it meanwhile.
        const partition = store().partitionOf(phone);
        expect(await store().claim('outbox', partition, leaseMs, t0 + 6)).toBeNull();
        // And it sends as any claim does.
        const recorded = await store().recordSent(
          result.outbox,
          'r-1:0',
          sentRecord(phone, 'sms-r-1', 'r-1:0'),
          t0 + 7,
        );
        expect(recorded).toMatchObject({ ok: true, nextOutbox: { message: outbound[1] } });
      });

      it('behind an outbox nobody holds whose head waits for quiet hours, makes it ready at once for a message that may go now', async () => {
        const [phone = ''] = phonesInDistinctPartitions(store(), 1);
        const holdUntil = t0 + 3_600_000;
        await queueOutbound(store(), phone, [{ ...outboundMessage(phone, 'h-1'), holdUntil }]);
        const held = await claimOf(store(), 'outbox', phone, t0);
        expect(await store().deferOutbound(held, 'h-1', 0, holdUntil)).toEqual({ ok: true });
        const partition = store().partitionOf(phone);
        expect(await store().claim('outbox', partition, leaseMs, t0 + 1)).toBeNull();
        const step = { ...replyStep(phone, 'r-1', 1), claimOutbox: { leaseMs } };
        expect(await commitDirect(replyEvent('r-1', phone), step, t0 + 2)).toEqual({ ok: true });
        // The answer passes the held message: claimable now, not when the hold ends.
        const outbox = await claimOf(store(), 'outbox', phone, t0 + 3);
        expect(outbox.view).toEqual({ message: step.outbound[0], sentSmsId: null });
      });

      it('behind an outbox a claim holds, queues its message for the holder to send next', async () => {
        const [phone = ''] = phonesInDistinctPartitions(store(), 1);
        await queueOutbound(store(), phone, [outboundMessage(phone, 'q-1')]);
        const holder = await claimOf(store(), 'outbox', phone, t0);
        expect(holder.view.message?.id).toBe('q-1');
        const step = { ...replyStep(phone, 'r-1', 1), claimOutbox: { leaseMs } };
        expect(await commitDirect(replyEvent('r-1', phone), step, t0 + 1)).toEqual({ ok: true });
        const partition = store().partitionOf(phone);
        expect(await store().claim('outbox', partition, leaseMs, t0 + 2)).toBeNull();
        expect(
          await store().recordSent(holder, 'q-1', sentRecord(phone, 'sms-q-1', 'q-1'), t0 + 3),
        ).toMatchObject({ ok: true, released: false, nextOutbox: { message: step.outbound[0] } });
      });

      it('pops nothing: an event ingested afterwards is claimed and committed as usual', async () => {
        const [phone = ''] = phonesInDistinctPartitions(store(), 1);
        await idleConversation(phone);
        const direct = replyStep(phone, 'r-1', 1);
        expect(await commitDirect(replyEvent('r-1', phone), direct, t0 + 1)).toEqual({
          ok: true,
        });
        expect(await store().pendingEvents(keyOf(phone))).toEqual([]);

        const result = await store().ingest('n-2', [{ event: replyEvent('r-2', phone) }], t0 + 2);
        expect(result).toMatchObject({ duplicate: false, pushed: 1 });
        const claim = await claimOf(store(), 'inbox', phone, t0 + 2);
        expect(claim.view).toEqual({
          record: direct.record,
          next: replyEvent('r-2', phone),
          origin: null,
        });
        const step = replyStep(phone, 'r-2', 2);
        expect(await store().commitStep(claim, step, t0 + 3)).toEqual({
          ok: true,
          next: { record: step.record, next: null, origin: null },
          released: true,
        });
        expect(await store().getConversation(keyOf(phone))).toEqual(step.record);
        expect((await store().listApplied(keyOf(phone))).slice(-2)).toEqual(['r-1', 'r-2']);
        expect((await store().pendingOutbound(keyOf(phone))).map((m) => m.id)).toEqual([
          'r-1:0',
          'r-2:0',
        ]);
      });

      it('refuses the same event committed again as duplicate, changing nothing, and its redelivery is a duplicate ingest', async () => {
        const [phone = ''] = phonesInDistinctPartitions(store(), 1);
        await idleConversation(phone);
        const event = replyEvent('r-1', phone);
        expect(await commitDirect(event, replyStep(phone, 'r-1', 1), t0 + 1)).toEqual({
          ok: true,
        });
        const before = await written(keyOf(phone));

        // The same step again (as a second delivery would run it: from the record it saw), and
        // one run from the record now stored: both refused as the redelivery they are.
        expect(await commitDirect(event, replyStep(phone, 'r-1', 1), t0 + 2)).toEqual({
          ok: false,
          reason: 'duplicate',
        });
        expect(await commitDirect(event, replyStep(phone, 'r-1', 2), t0 + 2)).toEqual({
          ok: false,
          reason: 'duplicate',
        });
        expect(await written(keyOf(phone))).toEqual(before);

        // The service delivers the notification again: the ingest knows it too.
        expect(await store().ingest('n-again', [{ event }], t0 + 3)).toEqual({
          duplicate: true,
          pushed: 0,
        });
        expect(await written(keyOf(phone))).toEqual(before);
        expect(
          await store().claim('inbox', store().partitionOf(phone), leaseMs, t0 + 3),
        ).toBeNull();
      });

      it('refuses as busy while an event waits in the mailbox, writing nothing', async () => {
        const [phone = ''] = phonesInDistinctPartitions(store(), 1);
        await idleConversation(phone);
        await store().ingest('n-1', [{ event: replyEvent('r-1', phone) }], t0 + 1);
        const before = await written(keyOf(phone));
        const step = { ...replyStep(phone, 'r-2', 1), claimOutbox: { leaseMs } };
        expect(await commitDirect(replyEvent('r-2', phone), step, t0 + 2)).toEqual({
          ok: false,
          reason: 'busy',
        });
        expect(await written(keyOf(phone))).toEqual(before);
        expect(before.events.map((e) => e.id)).toEqual(['r-1']);
        // The waiting event is claimed as before, and the outbox was not claimed.
        const claim = await claimOf(store(), 'inbox', phone, t0 + 2);
        expect(claim.view.next?.id).toBe('r-1');
        expect(
          await store().claim('outbox', store().partitionOf(phone), leaseMs, t0 + 2),
        ).toBeNull();
      });

      it('refuses as busy while a worker holds the conversation, writing nothing', async () => {
        const [phone = ''] = phonesInDistinctPartitions(store(), 1);
        await idleConversation(phone);
        await store().ingest('n-1', [{ event: replyEvent('r-1', phone) }], t0 + 1);
        const claim = await claimOf(store(), 'inbox', phone, t0 + 1);
        const before = await written(keyOf(phone));
        expect(
          await commitDirect(replyEvent('r-2', phone), replyStep(phone, 'r-2', 1), t0 + 2),
        ).toEqual({ ok: false, reason: 'busy' });
        expect(await written(keyOf(phone))).toEqual(before);
        // The holder's commit goes through as if nothing had been tried.
        const step = replyStep(phone, 'r-1', 1);
        expect(await store().commitStep(claim, step, t0 + 3)).toMatchObject({
          ok: true,
          released: true,
        });
        expect((await store().listApplied(keyOf(phone))).at(-1)).toBe('r-1');
      });

      it('refuses as stale an expectedSeq that is not the stored seq, writing nothing', async () => {
        const [phone = '', fresh = ''] = phonesInDistinctPartitions(store(), 2);
        await idleConversation(phone);
        const before = await written(keyOf(phone));
        for (const seq of [0, 2]) {
          const step = { ...replyStep(phone, 'r-1', seq), claimOutbox: { leaseMs } };
          expect(await commitDirect(replyEvent('r-1', phone), step, t0 + 1)).toEqual({
            ok: false,
            reason: 'stale',
          });
        }
        expect(await written(keyOf(phone))).toEqual(before);
        expect(
          await store().claim('outbox', store().partitionOf(phone), leaseMs, t0 + 1),
        ).toBeNull();

        // No record: the seq expected is 0.
        const step = replyStep(fresh, 'r-f', 1);
        expect(await commitDirect(replyEvent('r-f', fresh), step, t0 + 1)).toEqual({
          ok: false,
          reason: 'stale',
        });
        expect(await written(keyOf(fresh))).toEqual({
          record: null,
          outbound: [],
          applied: [],
          events: [],
        });
        // The refusal logged nothing: the event is still new to the ingest.
        expect(
          (await store().ingest('n-f', [{ event: replyEvent('r-f', fresh) }], t0 + 2)).duplicate,
        ).toBe(false);
      });

      it('refuses as suppressed a step unlessSuppressed for a suppressed phone, writing nothing', async () => {
        const [phone = '', other = ''] = phonesInDistinctPartitions(store(), 2);
        await store().markOptedOut(keyOf(phone), t0);
        const step: StepCommit = {
          eventId: 'r-1',
          expectedSeq: 0,
          record: conversationRecord(phone, 1),
          outbound: [outboundMessage(phone, 'r-1:0')],
          unlessSuppressed: true,
        };
        expect(await commitDirect(replyEvent('r-1', phone), step, t0 + 1)).toEqual({
          ok: false,
          reason: 'suppressed',
        });
        expect(await written(keyOf(phone))).toEqual({
          record: null,
          outbound: [],
          applied: [],
          events: [],
        });
        expect(await store().isSuppressed(keyOf(phone))).toBe(true);

        // A phone not on the list starts.
        const start = { ...step, record: conversationRecord(other, 1), outbound: [] };
        expect(await commitDirect(replyEvent('r-1', other), start, t0 + 1)).toEqual({
          ok: true,
        });
        expect(await store().getConversation(keyOf(other))).toEqual(start.record);
      });

      it('rejects with a TypeError a step whose eventId is not the event id, writing nothing', async () => {
        const [phone = ''] = phonesInDistinctPartitions(store(), 1);
        await idleConversation(phone);
        const before = await written(keyOf(phone));
        await expect(
          commitDirect(replyEvent('r-1', phone), replyStep(phone, 'r-other', 1), t0 + 1),
        ).rejects.toThrow(TypeError);
        expect(await written(keyOf(phone))).toEqual(before);
      });
    });
  }

  describe('commitDirect after its peek, the conversation moved meanwhile', () => {
    it('keeps what was written since the peek: a send recorded meanwhile stays recorded', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await queueOutbound(store(), phone, [outboundMessage(phone, 'm:0', 'Question?')]);
      const sender = await claimOf(store(), 'outbox', phone, t0);
      const view = await store().peekConversation(keyOf(phone), 'sms-m');
      expect(view).toEqual({ record: conversationRecord(phone, 1), origin: null });

      const sent = sentRecord(phone, 'sms-m', 'm:0');
      expect(await store().recordSent(sender, 'm:0', sent, t0 + 1)).toMatchObject({
        ok: true,
        released: true,
      });
      const event = { ...replyEvent('r-1', phone, 'sms-m'), body: 'Answer', receivedAt: t0 + 2 };
      const step = { ...replyStep(phone, 'r-1', 1), claimOutbox: { leaseMs } };
      const result = await store().commitDirect(event, step, t0 + 2);
      expect(result).toMatchObject({ ok: true, outbox: { view: { message: step.outbound[0] } } });

      const about = { smsId: 'sms-m', runId: 'run-1', outboxId: 'm:0', phone };
      expect(await store().getMessage(phone, 'sms-m')).toMatchObject(about);
      expect((await store().peekConversation(keyOf(phone), 'sms-m'))?.origin).toMatchObject(about);
      expect(await store().getConversation(keyOf(phone))).toEqual(step.record);
      expect(await store().pendingOutbound(keyOf(phone))).toEqual(step.outbound);
      const entries = (await store().readTranscript(keyOf(phone)))?.entries ?? [];
      expect(entries.map((entry) => [entry.direction, entry.body, entry.smsId])).toEqual([
        ['out', 'Question?', 'sms-m'],
        ['in', 'Answer', undefined],
      ]);
    });

    it('refuses as stale a step run on the record the peek read once a worker moved it', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await idleConversation(phone);
      expect((await store().peekConversation(keyOf(phone)))?.record?.seq).toBe(1);
      await store().ingest('n-2', [{ event: replyEvent('r-2', phone) }], t0 + 1);
      const claim = await claimOf(store(), 'inbox', phone, t0 + 1);
      const worker = replyStep(phone, 'r-2', 1);
      expect(await store().commitStep(claim, worker, t0 + 1)).toMatchObject({ released: true });
      const before = await written(keyOf(phone));

      const step = { ...replyStep(phone, 'r-1', 1), claimOutbox: { leaseMs } };
      expect(await store().commitDirect(replyEvent('r-1', phone), step, t0 + 2)).toEqual({
        ok: false,
        reason: 'stale',
      });
      expect(await written(keyOf(phone))).toEqual(before);
      expect(before.record).toEqual(worker.record);
    });

    it('refuses as busy once an event was ingested after the peek', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await idleConversation(phone);
      expect(await store().peekConversation(keyOf(phone))).not.toBeNull();
      await store().ingest('n-2', [{ event: replyEvent('r-2', phone) }], t0 + 1);
      const before = await written(keyOf(phone));
      const step = { ...replyStep(phone, 'r-1', 1), claimOutbox: { leaseMs } };
      expect(await store().commitDirect(replyEvent('r-1', phone), step, t0 + 2)).toEqual({
        ok: false,
        reason: 'busy',
      });
      expect(await written(keyOf(phone))).toEqual(before);
      expect((await claimOf(store(), 'inbox', phone, t0 + 2)).view.next?.id).toBe('r-2');
    });
  });
}
