import { describe, expect, it, vi } from 'vitest';
import type { DeadLetter } from '../../../../src/store/records.ts';
import type { QueueName, Store } from '../../../../src/store/store.ts';
import {
  claimOf,
  conversationRecord,
  keyOf,
  outboundMessage,
  phoneInSamePartition,
  phonesInDistinctPartitions,
  replyEvent,
  startEvent,
  t0,
  untilHeard,
} from './fixtures.ts';

export function inspectionContract(store: () => Store): void {
  describe('onReady', () => {
    it('tells listeners of new inbox and outbox work, until they unsubscribe', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const partition = store().partitionOf(phone);
      const heard: [QueueName, number][] = [];
      const unsubscribe = store().onReady((queue, p) => heard.push([queue, p]));
      await untilHeard(store(), heard, partition);
      // Forget the announcement of every partition the active subscription makes: what follows
      // must be heard from the commit itself.
      heard.length = 0;

      await store().ingest('n-start', [{ event: startEvent('e-start', phone) }], t0);
      const claim = await claimOf(store(), 'inbox', phone, t0);
      const step = {
        eventId: 'e-start',
        expectedSeq: 0,
        record: conversationRecord(phone, 1),
        outbound: [outboundMessage(phone, 'e-0:0')],
      };
      await store().commitStep(claim, step, t0);
      await vi.waitFor(() => expect(heard).toContainEqual(['outbox', partition]));

      unsubscribe();
      heard.length = 0;
      await store().ingest('n-after', [{ event: replyEvent('e-after', phone) }], t0);
      await store().pendingEvents(keyOf(phone));
      expect(heard).toEqual([]);
    });

    it('does not announce an outbox a sender holds: the message queued behind waits for the one in flight', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const other = phoneInSamePartition(store(), phone);
      const partition = store().partitionOf(phone);
      const heard: [QueueName, number][] = [];
      const unsubscribe = store().onReady((queue, p) => heard.push([queue, p]));
      try {
        await untilHeard(store(), heard, partition);
        // The subscription announces every partition once it is active: the wait below must
        // hear the commit's own announcement, which on a Cluster may come a little later.
        heard.length = 0;
        await store().ingest('n-start', [{ event: startEvent('e-start', phone) }], t0);
        const first = await claimOf(store(), 'inbox', phone, t0);
        await store().commitStep(
          first,
          {
            eventId: 'e-start',
            expectedSeq: 0,
            record: conversationRecord(phone, 1),
            outbound: [outboundMessage(phone, 'e-start:0')],
          },
          t0,
        );
        await vi.waitFor(() => expect(heard).toContainEqual(['outbox', partition]));
        // A sender takes the outbox; the next step queues a second message behind the first.
        await claimOf(store(), 'outbox', phone, t0);
        heard.length = 0;
        await store().ingest('n-reply', [{ event: replyEvent('e-reply', phone) }], t0);
        const second = await claimOf(store(), 'inbox', phone, t0);
        await store().commitStep(
          second,
          {
            eventId: 'e-reply',
            expectedSeq: 1,
            record: conversationRecord(phone, 2),
            outbound: [outboundMessage(phone, 'e-reply:0')],
          },
          t0,
        );
        // A later announcement in the partition: one the commit made would come before it.
        await store().ingest('n-other', [{ event: startEvent('e-other', other) }], t0);
        await vi.waitFor(() => expect(heard).toContainEqual(['inbox', partition]));
        expect(heard.filter(([queue]) => queue === 'outbox')).toEqual([]);
        expect((await store().pendingOutbound(keyOf(phone))).map((m) => m.id)).toEqual([
          'e-start:0',
          'e-reply:0',
        ]);
      } finally {
        unsubscribe();
      }
    });
  });

  describe('inspection', () => {
    it('answers empty for a conversation it never saw', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      expect(await store().getConversation(keyOf(phone))).toBeNull();
      expect(await store().getMessage(phone, 'sms-none')).toBeNull();
      expect(await store().listApplied(keyOf(phone))).toEqual([]);
      expect(await store().pendingEvents(keyOf(phone))).toEqual([]);
      expect(await store().pendingOutbound(keyOf(phone))).toEqual([]);
      expect(await store().listDeadLetters()).toEqual([]);
    });

    it('keeps dead letters newest first, capped at 1000', async () => {
      const letter = (i: number): DeadLetter => ({
        v: 1,
        at: t0 + i,
        reason: 'malformed',
        body: `{"n":${i}}`,
        location: 'paris',
      });
      await Promise.all(
        Array.from({ length: 1_005 }, (_, i) => i).map((i) => store().pushDeadLetter(letter(i))),
      );
      const letters = await store().listDeadLetters();
      expect(letters).toHaveLength(1_000);
      expect([letters[0], letters.at(-1)]).toEqual([letter(1_004), letter(5)]);
      expect(await store().listDeadLetters(2)).toEqual(letters.slice(0, 2));

      await store().pushDeadLetter(letter(2_000));
      expect(await store().listDeadLetters(1)).toEqual([letter(2_000)]);
    });

    it('keeps no dead letter longer than the retention (30 days by default)', async () => {
      const day = 24 * 3_600_000;
      const letter = (at: number): DeadLetter => ({ v: 1, at, reason: 'malformed', body: '{' });
      await store().pushDeadLetter(letter(t0));
      await store().pushDeadLetter(letter(t0 + 29 * day));
      expect(await store().listDeadLetters()).toEqual([letter(t0 + 29 * day), letter(t0)]);
      await store().pushDeadLetter(letter(t0 + 31 * day));
      expect(await store().listDeadLetters()).toEqual([
        letter(t0 + 31 * day),
        letter(t0 + 29 * day),
      ]);
    });
  });
}
