import { describe, expect, it } from 'vitest';
import type {
  ConversationRecord,
  OutboundMessage,
  ReplyEvent,
} from '../../../../src/store/records.ts';
import type { ClaimWithView, Store } from '../../../../src/store/store.ts';
import { storeLimits } from '../../../../src/store/store-limits.ts';
import {
  claimOf,
  conversationRecord,
  keyOf,
  outboundMessage,
  phonesInDistinctPartitions,
  replyEvent,
  sentRecord,
  statusItem,
  t0,
  timerRecord,
} from './fixtures.ts';

/** A reply with its own body and time. */
const reply = (phone: string, id: string, body: string, at: number): ReplyEvent => ({
  ...replyEvent(id, phone),
  body,
  receivedAt: at,
});

/** A record of run-1 at `seq`, in state `value`. */
const recordIn = (phone: string, seq: number, value: unknown): ConversationRecord => ({
  ...conversationRecord(phone, seq),
  snapshot: { value, context: {} },
});

/**
 * Takes replies in (one notification), then drains them, one commit each, as the worker does:
 * the i-th commit writes the record `records(i)` and queues `outbound(i)`. Releases at the end.
 */
async function runReplies(
  store: Store,
  phone: string,
  replies: ReplyEvent[],
  step: (i: number, seq: number) => { record: ConversationRecord; outbound?: OutboundMessage[] },
  now: number,
): Promise<void> {
  await store.ingest(
    `n-${replies[0]!.id}`,
    replies.map((event) => ({ event })),
    now,
  );
  const claim: ClaimWithView<'inbox'> = await claimOf(store, 'inbox', phone, now);
  let seq = claim.view.record?.seq ?? 0;
  for (const [i, event] of replies.entries()) {
    const { record, outbound = [] } = step(i, seq + 1);
    const result = await store.commitStep(
      claim,
      { eventId: event.id, expectedSeq: seq, record, outbound },
      now,
    );
    expect(result.ok).toBe(true);
    seq += 1;
  }
  await store.release(claim, now);
}

/** Sends the messages of `phone`'s outbox, in order, as `smsIds`, the i-th at `now + i`. */
async function send(store: Store, phone: string, smsIds: string[], now: number): Promise<void> {
  const claim = await claimOf(store, 'outbox', phone, now);
  let message = claim.view.message;
  for (const [i, smsId] of smsIds.entries()) {
    const record = sentRecord(phone, smsId, message!.id);
    const result = await store.recordSent(claim, message!.id, record, now + i);
    if (!result.ok) throw new Error(`recordSent of ${smsId}: ${result.reason}`);
    message = result.nextOutbox.message;
  }
  expect(message).toBeNull();
}

export function transcriptContract(store: () => Store): void {
  describe('transcript', () => {
    it('keeps replies and sent SMS in order, each reply with the state after its step, and joins the message records', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      expect(await store().readTranscript(keyOf(phone))).toBeNull();
      await runReplies(
        store(),
        phone,
        [reply(phone, 'r-1', 'HELLO "you" \t é', t0)],
        (_, seq) => ({
          record: recordIn(phone, seq, { asking: 'q1' }),
          outbound: [
            outboundMessage(phone, 'r-1:0', 'First?'),
            outboundMessage(phone, 'r-1:1', 'Second ✓'),
          ],
        }),
        t0 + 1,
      );
      await send(store(), phone, ['sms-1', 'sms-2'], t0 + 10);
      await runReplies(
        store(),
        phone,
        [reply(phone, 'r-2', 'YES', t0 + 20)],
        (_, seq) => ({
          record: { ...recordIn(phone, seq, 'done'), status: 'done', endedReason: 'final' },
        }),
        t0 + 21,
      );
      // Pushed to the mailbox for the engine too: the record moved already.
      await store().ingest('n-s1', [statusItem('s-1', phone, 'sms-1', 'delivered')], t0 + 22);

      const transcript = await store().readTranscript(keyOf(phone));
      expect(transcript?.entries).toEqual([
        { direction: 'in', at: t0, body: 'HELLO "you" \t é', stateAfter: 'asking.q1' },
        {
          direction: 'out',
          at: t0 + 10,
          body: 'First?',
          smsId: 'sms-1',
          status: 'delivered',
          reason: 'delivered-reason',
          parts: 2,
          price: 0.0075,
        },
        { direction: 'out', at: t0 + 11, body: 'Second ✓', smsId: 'sms-2', status: 'pending' },
        { direction: 'in', at: t0 + 20, body: 'YES', stateAfter: 'done' },
      ]);
      expect(transcript?.conversation).toEqual({
        runId: 'run-1',
        bot: 'survey',
        version: 'abc',
        status: 'done',
        state: 'done',
        startedAt: t0,
        updatedAt: t0 + 2,
        timers: [],
        result: {},
        endCode: 'final',
      });
    });

    it("joins the records of older SMS kept out of the conversation's value, and shows the run's timers", async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const sent = storeLimits.messagesInRecord + 2;
      const due = t0 + 3_600_000;
      await store().ingest('n-t', [{ event: reply(phone, 'r-1', 'GO', t0) }], t0);
      const claim = await claimOf(store(), 'inbox', phone, t0);
      const outbound = Array.from({ length: sent }, (_, i) =>
        outboundMessage(phone, `r-1:${i}`, `m${i}`),
      );
      const committed = await store().commitStep(
        claim,
        {
          eventId: 'r-1',
          expectedSeq: 0,
          record: { ...recordIn(phone, 1, 'waiting'), timers: { 'run-1:reminder': due } },
          outbound,
          timers: { set: [timerRecord(phone, 'reminder', due)], cancel: [] },
        },
        t0,
      );
      expect(committed.ok).toBe(true);
      const smsIds = outbound.map((_, i) => `sms-${i}`);
      await send(store(), phone, smsIds, t0 + 1);
      await store().ingest('n-s0', [statusItem('s-0', phone, 'sms-0', 'errored')], t0 + 50);

      const transcript = await store().readTranscript(keyOf(phone));
      const out = transcript?.entries.filter((entry) => entry.direction === 'out') ?? [];
      expect(out.map((entry) => [entry.smsId, entry.body, entry.status])).toEqual([
        ['sms-0', 'm0', 'errored'],
        ...Array.from({ length: sent - 1 }, (_, i) => [`sms-${i + 1}`, `m${i + 1}`, 'pending']),
      ]);
      expect(out[0]).toMatchObject({ reason: 'errored-reason', parts: 2, price: 0.0075 });
      expect(transcript?.conversation?.timers).toEqual([
        { id: 'run-1:reminder', event: 'reminder.fired', dueAt: due },
      ]);
    });

    it('shows a message dropped at send time (the phone opted out) with its reason', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await runReplies(
        store(),
        phone,
        [reply(phone, 'r-1', 'HI', t0)],
        (_, seq) => ({
          record: recordIn(phone, seq, 'a'),
          outbound: [outboundMessage(phone, 'r-1:0', 'Never sent')],
        }),
        t0,
      );
      await store().markOptedOut(keyOf(phone), t0 + 1);
      const claim = await claimOf(store(), 'outbox', phone, t0 + 2);
      expect(claim.view.dropped).toEqual([{ id: 'r-1:0', reason: 'suppressed', botId: 'survey' }]);
      expect((await store().readTranscript(keyOf(phone)))?.entries.at(-1)).toEqual({
        direction: 'out',
        at: t0 + 2,
        body: 'Never sent',
        smsId: 'dropped:r-1:0',
        status: 'errored',
        reason: 'suppressed',
      });
    });

    it('shows a send that failed for good with its reason', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await runReplies(
        store(),
        phone,
        [reply(phone, 'r-1', 'HI', t0)],
        (_, seq) => ({
          record: recordIn(phone, seq, 'a'),
          outbound: [outboundMessage(phone, 'r-1:0', 'Refused')],
        }),
        t0,
      );
      const claim = await claimOf(store(), 'outbox', phone, t0 + 1);
      const failure = {
        ...statusItem('send-failed:r-1:0', phone, '', 'errored').event,
        outboxId: 'r-1:0',
        runId: 'run-1',
        statusReason: 'send_failed',
      };
      expect(await store().failOutbound(claim, 'r-1:0', failure, t0 + 2)).toMatchObject({
        ok: true,
      });
      expect((await store().readTranscript(keyOf(phone)))?.entries.at(-1)).toEqual({
        direction: 'out',
        at: t0 + 2,
        body: 'Refused',
        smsId: 'failed:r-1:0',
        status: 'errored',
        reason: 'send_failed',
      });
    });

    it('keeps bodies and sms ids of any characters, in the value and out of it, and finds each record by its sms id', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      // Plain ids and bodies are read as text by the scripts, the others decoded: both here.
      const bodies = ['plain body', 'He said "yes" \\ back\nslash', 'é 🎉 a/b', '\t{"x":[1]}'];
      const smsIds = ['sms-plain.1', 'sms "2"', 'sms/3 é', 'sms\\4', 'sms:5'];
      await runReplies(
        store(),
        phone,
        bodies.map((body, i) => reply(phone, `r-${i}`, body, t0 + i)),
        (i, seq) => ({
          record: recordIn(phone, seq, `s${i}`),
          outbound:
            i === 0
              ? smsIds.map((_, k) => outboundMessage(phone, `r-0:${k}`, `out ${bodies[k % 4]}`))
              : [],
        }),
        t0 + 10,
      );
      await send(store(), phone, smsIds, t0 + 20);
      // Each sms moves forward once; a status going backward changes nothing.
      for (const [i, smsId] of smsIds.entries()) {
        await store().ingest(`n-d${i}`, [statusItem(`d-${i}`, phone, smsId, 'delivered')], t0 + 30);
        await store().ingest(`n-s${i}`, [statusItem(`s-${i}`, phone, smsId, 'sent')], t0 + 31);
      }

      const transcript = await store().readTranscript(keyOf(phone));
      const inbound = transcript?.entries.filter((entry) => entry.direction === 'in') ?? [];
      expect(inbound.map((entry) => entry.body)).toEqual(bodies);
      const out = transcript?.entries.filter((entry) => entry.direction === 'out') ?? [];
      expect(out.map((entry) => [entry.smsId, entry.body, entry.status])).toEqual(
        smsIds.map((smsId, k) => [smsId, `out ${bodies[k % 4]}`, 'delivered']),
      );

      // A reply to each sms finds its record, whether in the value or in a key of its own.
      for (const [i, smsId] of smsIds.entries()) {
        await store().ingest(`n-o${i}`, [{ event: replyEvent(`o-${i}`, phone, smsId) }], t0 + 40);
      }
      const claim = await claimOf(store(), 'inbox', phone, t0 + 40);
      const origins: unknown[] = [];
      let view = claim.view;
      let seq = view.record?.seq ?? 0;
      while (view.next) {
        // The statuses that moved a record are in the mailbox too, before the replies.
        if (view.next.kind === 'reply') {
          origins.push([view.origin?.smsId, view.origin?.status, view.origin?.outboxId]);
        }
        const result = await store().commitStep(
          claim,
          {
            eventId: view.next.id,
            expectedSeq: seq,
            record: recordIn(phone, seq + 1, 'x'),
            outbound: [],
          },
          t0 + 41,
        );
        if (!result.ok) throw new Error(`commit: ${result.reason}`);
        seq += 1;
        if (!result.next) break;
        view = result.next;
      }
      expect(origins).toEqual(smsIds.map((smsId, k) => [smsId, 'delivered', `r-0:${k}`]));
    });

    it(`keeps the last ${storeLimits.transcriptEntries} messages`, async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await runReplies(
        store(),
        phone,
        [reply(phone, 'r-0', 'first', t0)],
        (_, seq) => ({
          record: recordIn(phone, seq, 's'),
          outbound: [outboundMessage(phone, 'r-0:0', 'hi')],
        }),
        t0,
      );
      await send(store(), phone, ['sms-0'], t0 + 1);
      const count = storeLimits.transcriptEntries;
      const replies = Array.from({ length: count }, (_, i) =>
        reply(phone, `r-${i + 1}`, `m${i + 1}`, t0 + 10 + i),
      );
      await runReplies(
        store(),
        phone,
        replies,
        (i, seq) => ({ record: recordIn(phone, seq, `s${i + 1}`) }),
        t0 + 10,
      );

      const entries = (await store().readTranscript(keyOf(phone)))?.entries ?? [];
      expect(entries).toHaveLength(count);
      expect(entries[0]).toEqual({ direction: 'in', at: t0 + 10, body: 'm1', stateAfter: 's1' });
      expect(entries.at(-1)).toEqual({
        direction: 'in',
        at: t0 + 9 + count,
        body: `m${count}`,
        stateAfter: `s${count}`,
      });
    });

    it("leaves the transcript out of the worker's views, and keeps it through a step that leaves the record as it is", async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await runReplies(
        store(),
        phone,
        [reply(phone, 'r-1', 'HI', t0)],
        (_, seq) => ({ record: recordIn(phone, seq, 'a') }),
        t0,
      );
      // A reply whose step writes no record (the engine dropped it) adds nothing.
      await store().ingest('n-2', [{ event: reply(phone, 'r-2', 'late', t0 + 5) }], t0 + 5);
      const claim = await claimOf(store(), 'inbox', phone, t0 + 5);
      expect(claim.view.record).toEqual(recordIn(phone, 1, 'a'));
      const result = await store().commitStep(
        claim,
        { eventId: 'r-2', expectedSeq: 1, record: null, outbound: [] },
        t0 + 5,
      );
      expect(result.ok).toBe(true);
      expect(await store().getConversation(keyOf(phone))).toEqual(recordIn(phone, 1, 'a'));
      expect((await store().readTranscript(keyOf(phone)))?.entries).toEqual([
        { direction: 'in', at: t0, body: 'HI', stateAfter: 'a' },
      ]);
    });
  });
}
