import { describe, expect, it } from 'vitest';
import type { Store } from '../../../../src/store/store.ts';
import {
  claimOf,
  claimStartAndReply,
  conversationRecord,
  keyOf,
  leaseMs,
  outboundMessage,
  phoneInSamePartition,
  phonesInDistinctPartitions,
  queueOutbound,
  replyEvent,
  startEvent,
  t0,
} from './fixtures.ts';

export function leaseContract(store: () => Store): void {
  describe('nextReadyAt', () => {
    it('is the earliest ready time of the partition, a claimed conversation’s lease end included, and null once it has none', async () => {
      const [a = ''] = phonesInDistinctPartitions(store(), 1);
      const b = phoneInSamePartition(store(), a);
      const partition = store().partitionOf(a);
      expect(await store().nextReadyAt('inbox', partition)).toBeNull();
      await store().ingest('n-a', [{ event: replyEvent('e-a', a) }], t0);
      await store().ingest('n-b', [{ event: replyEvent('e-b', b) }], t0 + 5);
      expect(await store().nextReadyAt('inbox', partition)).toBe(t0);
      // Claimed, `a` is ready again only when its lease ends: `b` is the earliest now.
      const claim = await store().claim('inbox', partition, leaseMs, t0 + 10);
      expect(claim).toMatchObject({ phone: a });
      expect(await store().nextReadyAt('inbox', partition)).toBe(t0 + 5);
      await store().claim('inbox', partition, leaseMs, t0 + 20);
      expect(await store().nextReadyAt('inbox', partition)).toBe(t0 + 10 + leaseMs);
      // The other queue, and the other partitions, have their own.
      expect(await store().nextReadyAt('outbox', partition)).toBeNull();
      expect(await store().nextReadyAt('inbox', (partition + 1) % store().partitions)).toBeNull();
    });

    it('says when a deferred message is ready again', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const partition = store().partitionOf(phone);
      await queueOutbound(store(), phone, [outboundMessage(phone, 'e-1:0')]);
      const claim = await store().claim('outbox', partition, leaseMs, t0);
      expect(await store().deferOutbound(claim!, claim!.view.message!.id, 1, t0 + 60_000)).toEqual({
        ok: true,
      });
      expect(await store().nextReadyAt('outbox', partition)).toBe(t0 + 60_000);
    });
  });

  describe('claimMany', () => {
    it('claims up to max ready conversations, ready longest first, each with its own token and view', async () => {
      const [a = ''] = phonesInDistinctPartitions(store(), 1);
      const b = phoneInSamePartition(store(), a);
      const c = phoneInSamePartition(store(), b === a ? a : b);
      const partition = store().partitionOf(a);
      await store().ingest('n-a', [{ event: replyEvent('e-a', a) }], t0);
      await store().ingest('n-b', [{ event: replyEvent('e-b', b) }], t0 + 1);
      await store().ingest('n-c', [{ event: replyEvent('e-c', c) }], t0 + 2);
      expect(await store().claimMany('inbox', partition, leaseMs, t0 + 1, 5)).toMatchObject([
        { phone: a, view: { next: { id: 'e-a' } } },
        { phone: b, view: { next: { id: 'e-b' } } },
      ]);
      const [third, ...none] = await store().claimMany('inbox', partition, leaseMs, t0 + 2, 5);
      expect(third).toMatchObject({ phone: c, view: { next: { id: 'e-c' } } });
      expect(none).toEqual([]);
      expect(await store().claimMany('inbox', partition, leaseMs, t0 + 3, 5)).toEqual([]);
    });

    it('gives each claim a token that holds its lock alone', async () => {
      const [a = ''] = phonesInDistinctPartitions(store(), 1);
      const b = phoneInSamePartition(store(), a);
      await store().ingest('n-a', [{ event: replyEvent('e-a', a) }], t0);
      await store().ingest('n-b', [{ event: replyEvent('e-b', b) }], t0);
      const claims = await store().claimMany('inbox', store().partitionOf(a), leaseMs, t0, 2);
      expect(claims).toHaveLength(2);
      const [first, second] = claims as [(typeof claims)[0], (typeof claims)[0]];
      expect(first.token).not.toBe(second.token);
      // The first claim's token cannot commit the second's conversation.
      const step = (eventId: string, phone: string) => ({
        eventId,
        expectedSeq: 0,
        record: conversationRecord(phone, 1),
        outbound: [],
      });
      expect(
        await store().commitStep(
          { ...second, token: first.token },
          step(second.view.next!.id, second.phone),
          t0,
        ),
      ).toEqual({ ok: false, reason: 'lost-lock' });
      for (const claim of claims) {
        expect(
          await store().commitStep(claim, step(claim.view.next!.id, claim.phone), t0),
        ).toMatchObject({ ok: true });
      }
    });
  });

  describe('claim and release', () => {
    it('finds nothing in an empty partition, nor before the ready time', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      expect(await store().claim('inbox', store().partitionOf(phone), leaseMs, t0)).toBeNull();
      await store().ingest('n-1', [{ event: startEvent('e-1', phone) }], t0);
      expect(await store().claim('inbox', store().partitionOf(phone), leaseMs, t0 - 1)).toBeNull();
      expect(await store().claim('outbox', store().partitionOf(phone), leaseMs, t0)).toBeNull();
    });

    it('claims with the first view of the mailbox, as readInbox reads it', async () => {
      const { phone, claim } = await claimStartAndReply(store());
      expect(claim.view).toEqual({ record: null, next: startEvent('e-1', phone), origin: null });
      expect(claim.view).toEqual(await store().readInbox(claim));

      const step = {
        eventId: 'e-1',
        expectedSeq: 0,
        record: conversationRecord(phone, 1),
        outbound: [],
      };
      await store().commitStep(claim, step, t0);
      await store().release(claim, t0);
      const again = await claimOf(store(), 'inbox', phone, t0 + 1);
      expect(again.view).toEqual({
        record: conversationRecord(phone, 1),
        next: replyEvent('e-2', phone),
        origin: null,
      });
      expect(again.view).toEqual(await store().readInbox(again));
    });

    it('claims the outbox with the first view of its messages, as readOutbox reads it', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const messages = [outboundMessage(phone, 'e-0:0'), outboundMessage(phone, 'e-0:1')];
      await queueOutbound(store(), phone, messages);
      const claim = await claimOf(store(), 'outbox', phone, t0);
      expect(claim.view).toEqual({ message: messages[0], sentSmsId: null });
      expect(claim.view).toEqual(await store().readOutbox(claim, t0));
    });

    it('hides a claimed conversation until its lease passes, then hands it over and fences the old token', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await store().ingest('n-1', [{ event: startEvent('e-1', phone) }], t0);
      const first = await claimOf(store(), 'inbox', phone, t0);
      expect(await store().claim('inbox', first.partition, leaseMs, t0 + leaseMs - 1)).toBeNull();

      const second = await claimOf(store(), 'inbox', phone, t0 + leaseMs);
      expect(second.token).not.toBe(first.token);
      const step = {
        eventId: 'e-1',
        expectedSeq: 0,
        record: conversationRecord(phone, 1),
        outbound: [],
      };
      expect(await store().commitStep(first, step, t0 + leaseMs)).toEqual({
        ok: false,
        reason: 'lost-lock',
      });
      expect(await store().commitStep(second, step, t0 + leaseMs)).toMatchObject({ ok: true });
    });

    it('extends the lease on every commit', async () => {
      const { phone, claim } = await claimStartAndReply(store());
      const step = {
        eventId: 'e-1',
        expectedSeq: 0,
        record: conversationRecord(phone, 1),
        outbound: [],
      };
      await store().commitStep(claim, step, t0 + 20_000);
      expect(await store().claim('inbox', claim.partition, leaseMs, t0 + leaseMs + 1)).toBeNull();
      await claimOf(store(), 'inbox', phone, t0 + 20_000 + leaseMs);
    });

    it('keeps a released conversation ready while events remain, at notBefore when given', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await store().ingest('n-1', [{ event: startEvent('e-1', phone) }], t0);
      await store().release(await claimOf(store(), 'inbox', phone, t0), t0 + 1);
      const again = await claimOf(store(), 'inbox', phone, t0 + 1);
      await store().release(again, t0 + 2, t0 + 10_000);
      expect(await store().claim('inbox', again.partition, leaseMs, t0 + 9_999)).toBeNull();
      await claimOf(store(), 'inbox', phone, t0 + 10_000);
    });

    it('drops a drained conversation from the ready set on release', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await store().ingest('n-1', [{ event: startEvent('e-1', phone) }], t0);
      const claim = await claimOf(store(), 'inbox', phone, t0);
      await store().commitStep(
        claim,
        { eventId: 'e-1', expectedSeq: 0, record: null, outbound: [] },
        t0,
      );
      await store().release(claim, t0);
      expect(await store().claim('inbox', claim.partition, leaseMs, t0 + 10 * leaseMs)).toBeNull();
    });

    it('does not lose an event ingested while the conversation is claimed', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await store().ingest('n-1', [{ event: startEvent('e-1', phone) }], t0);
      const claim = await claimOf(store(), 'inbox', phone, t0);
      await store().ingest('n-2', [{ event: replyEvent('e-2', phone) }], t0 + 1);
      const result = await store().commitStep(
        claim,
        { eventId: 'e-1', expectedSeq: 0, record: null, outbound: [] },
        t0 + 1,
      );
      expect(result).toMatchObject({ ok: true, next: { next: { id: 'e-2' } }, released: false });

      expect(await store().claim('inbox', claim.partition, leaseMs, t0 + 2)).toBeNull();
      await store().release(claim, t0 + 3);
      const again = await claimOf(store(), 'inbox', phone, t0 + 3);
      expect((await store().readInbox(again)).next?.id).toBe('e-2');
    });

    it('releases the claim with the commit that empties the mailbox; a later event makes it ready again', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await store().ingest('n-1', [{ event: startEvent('e-1', phone) }], t0);
      const claim = await claimOf(store(), 'inbox', phone, t0);
      const result = await store().commitStep(
        claim,
        { eventId: 'e-1', expectedSeq: 0, record: null, outbound: [] },
        t0,
      );
      expect(result).toMatchObject({ ok: true, next: { next: null }, released: true });
      // Nothing to claim, even once the lease would have passed: it left the ready set.
      expect(await store().claim('inbox', claim.partition, leaseMs, t0 + 2 * leaseMs)).toBeNull();

      // An event ingested after it is claimable at once, under a new token; the old one holds nothing.
      await store().ingest('n-2', [{ event: replyEvent('e-2', phone) }], t0 + 1);
      const again = await claimOf(store(), 'inbox', phone, t0 + 1);
      expect(again.view.next?.id).toBe('e-2');
      const stale = await store().commitStep(
        claim,
        { eventId: 'e-2', expectedSeq: 0, record: null, outbound: [] },
        t0 + 2,
      );
      expect(stale).toEqual({ ok: false, reason: 'lost-lock' });
      await store().release(claim, t0 + 2);
      expect(await store().claim('inbox', claim.partition, leaseMs, t0 + 3)).toBeNull();
    });

    it('passes over a conversation a dead claimer drained, to the next ready one', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const neighbour = phoneInSamePartition(store(), phone);
      await store().ingest('n-1', [{ event: startEvent('e-1', phone) }], t0);
      const dead = await claimOf(store(), 'inbox', phone, t0);
      await store().commitStep(
        dead,
        { eventId: 'e-1', expectedSeq: 0, record: null, outbound: [] },
        t0,
      );
      // The claimer dies before its release; its conversation stays ready at t0 + lease.
      await store().ingest('n-2', [{ event: startEvent('e-2', neighbour) }], t0 + leaseMs + 5);
      await claimOf(store(), 'inbox', neighbour, t0 + leaseMs + 10);
      expect(await store().claim('inbox', dead.partition, leaseMs, t0 + 2 * leaseMs)).toBeNull();
    });

    it('ignores the release of a token that lost the lock', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      await store().ingest('n-1', [{ event: startEvent('e-1', phone) }], t0);
      const first = await claimOf(store(), 'inbox', phone, t0);
      const second = await claimOf(store(), 'inbox', phone, t0 + leaseMs);
      await store().release(first, t0 + leaseMs + 1);
      expect(await store().claim('inbox', second.partition, leaseMs, t0 + leaseMs + 1)).toBeNull();
      const step = { eventId: 'e-1', expectedSeq: 0, record: null, outbound: [] };
      expect(await store().commitStep(second, step, t0 + leaseMs + 2)).toMatchObject({ ok: true });
      expect(await store().pendingEvents(keyOf(phone))).toEqual([]);
    });
  });
}
