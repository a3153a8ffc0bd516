import { describe, expect, it } from 'vitest';
import type { StepCommit, Store } from '../../../../src/store/store.ts';
import {
  claimOf,
  conversationRecord,
  keyOf,
  leaseMs,
  outboundMessage,
  phonesInDistinctPartitions,
  replyEvent,
  t0,
} from './fixtures.ts';

/** The step of reply `id` for `phone`, computed from the record at `seq`. */
function stepOf(phone: string, id: string, seq: number, body = 'Thanks'): StepCommit {
  return {
    eventId: id,
    expectedSeq: seq,
    record: conversationRecord(phone, seq + 1),
    outbound: [outboundMessage(phone, `${id}:0`, body)],
  };
}

/** A conversation with a record at seq 1 and nothing pending. */
async function idleConversation(store: Store, phone: string): Promise<void> {
  await store.ingest('n-0', [{ event: replyEvent('e-0', phone) }], t0);
  const claim = await claimOf(store, 'inbox', phone, t0);
  const result = await store.commitStep(
    claim,
    { eventId: 'e-0', expectedSeq: 0, record: conversationRecord(phone, 1), outbound: [] },
    t0,
  );
  expect(result).toMatchObject({ ok: true, released: true });
}

/** `ingestStep`: the web role's inline step, committed with the reply's ingestion. */
export function ingestStepContract(store: () => Store): void {
  describe('ingestStep', () => {
    it('commits the step of an idle conversation at once: record, outbox, applied id, nothing in the mailbox', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await idleConversation(store(), phone);
      const event = replyEvent('e-1', phone);
      expect(await store().ingestStep('n-1', event, stepOf(phone, 'e-1', 1), t0 + 1)).toEqual({
        kind: 'applied',
      });
      expect((await store().getConversation(keyOf(phone)))?.seq).toBe(2);
      expect(await store().pendingEvents(keyOf(phone))).toEqual([]);
      expect((await store().pendingOutbound(keyOf(phone))).map((m) => m.id)).toEqual(['e-1:0']);
      expect(await store().listApplied(keyOf(phone))).toEqual(['e-0', 'e-1']);
      // The same notification again: nothing more, whichever way it comes.
      expect(await store().ingestStep('n-1', event, stepOf(phone, 'e-1', 2), t0 + 2)).toEqual({
        kind: 'duplicate',
      });
      expect(await store().ingest('n-1', [{ event }], t0 + 2)).toMatchObject({ duplicate: true });
      expect(await store().listApplied(keyOf(phone))).toEqual(['e-0', 'e-1']);
    });

    it('hands the outbox it claims to the caller, as commitStep does', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await idleConversation(store(), phone);
      const step = { ...stepOf(phone, 'e-1', 1), claimOutbox: { leaseMs } };
      const result = await store().ingestStep('n-1', replyEvent('e-1', phone), step, t0 + 1);
      expect(result).toMatchObject({
        kind: 'applied',
        outbox: { phone, view: { message: { id: 'e-1:0' }, sentSmsId: null } },
      });
      expect(await store().claim('outbox', store().partitionOf(phone), leaseMs, t0 + 2)).toBeNull();
    });

    it('pushes the event to the mailbox, unapplied, when the record moved on, a worker holds the conversation, or events wait', async () => {
      const [moved = '', held = '', waiting = ''] = phonesInDistinctPartitions(store(), 3);
      for (const phone of [moved, held, waiting]) await idleConversation(store(), phone);
      // A step computed from seq 0, while the record is at 1.
      expect(
        await store().ingestStep('n-m', replyEvent('m-1', moved), stepOf(moved, 'm-1', 0), t0),
      ).toEqual({ kind: 'pushed' });
      // A worker holds it.
      await store().ingest('n-h', [{ event: replyEvent('h-1', held) }], t0);
      await claimOf(store(), 'inbox', held, t0);
      expect(
        await store().ingestStep('n-h2', replyEvent('h-2', held), stepOf(held, 'h-2', 1), t0),
      ).toEqual({ kind: 'pushed' });
      // An event waits in its mailbox: the new one goes behind it.
      await store().ingest('n-w', [{ event: replyEvent('w-1', waiting) }], t0);
      expect(
        await store().ingestStep('n-w2', replyEvent('w-2', waiting), stepOf(waiting, 'w-2', 1), t0),
      ).toEqual({ kind: 'pushed' });

      expect((await store().pendingEvents(keyOf(moved))).map((e) => e.id)).toEqual(['m-1']);
      expect((await store().pendingEvents(keyOf(held))).map((e) => e.id)).toEqual(['h-1', 'h-2']);
      expect((await store().pendingEvents(keyOf(waiting))).map((e) => e.id)).toEqual([
        'w-1',
        'w-2',
      ]);
      for (const phone of [moved, held, waiting]) {
        expect((await store().getConversation(keyOf(phone)))?.seq).toBe(1);
        expect(await store().pendingOutbound(keyOf(phone))).toEqual([]);
      }
      // The pushed one is claimable by a worker, as after ingest.
      const claim = await claimOf(store(), 'inbox', moved, t0 + 1);
      expect(claim.view.next?.id).toBe('m-1');
    });
  });
}
