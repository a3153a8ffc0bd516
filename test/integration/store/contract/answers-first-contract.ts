import { describe, expect, it } from 'vitest';
import type { OutboundMessage } from '../../../../src/store/records.ts';
import type { Store } from '../../../../src/store/store.ts';
import {
  leaseMs,
  outboundMessage,
  phonesInDistinctPartitions,
  queueOutbound,
  t0,
} from './fixtures.ts';

/** `count` phones whose conversations share one partition of `store`. */
function phonesInOnePartition(store: Store, count: number): string[] {
  const [first = ''] = phonesInDistinctPartitions(store, 1);
  const phones = [first];
  for (let n = 0; phones.length < count; n++) {
    const phone = `3365432${String(n).padStart(4, '0')}`;
    if (store.partitionOf(phone) === store.partitionOf(first)) phones.push(phone);
  }
  return phones;
}

/** A message the bot sent on its own (a start's, a timer's, a campaign's). */
function botInitiated(phone: string, id: string): OutboundMessage {
  return { ...outboundMessage(phone, id), botInitiated: true };
}

const phonesOf = (claims: ReadonlyArray<{ phone: string }>) => claims.map((c) => c.phone);

/**
 * Answers first (DESIGN §3, "Two lanes to the service"): an outbox holding bot-initiated
 * messages only is claimed after every other ready one, whenever it became ready.
 */
export function answersFirstContract(store: () => Store): void {
  describe('answers first', () => {
    it('claims an answer before the bot-initiated outboxes ready earlier, each band in ready order', async () => {
      const [a = '', b = '', c = '', d = ''] = phonesInOnePartition(store(), 4);
      const partition = store().partitionOf(a);
      await queueOutbound(store(), a, [botInitiated(a, 'a:0')], t0);
      await queueOutbound(store(), b, [botInitiated(b, 'b:0')], t0 + 1);
      await queueOutbound(store(), c, [outboundMessage(c, 'c:0')], t0 + 2);
      await queueOutbound(store(), d, [outboundMessage(d, 'd:0')], t0 + 3);
      const claims = await store().claimMany('outbox', partition, leaseMs, t0 + 10, 4);
      expect(phonesOf(claims)).toEqual([c, d, a, b]);
      expect(claims[2]?.view.message?.id).toBe('a:0');
    });

    it('leaves the bot-initiated outboxes to a claim that asks for answers only', async () => {
      const [a = '', b = ''] = phonesInOnePartition(store(), 2);
      const partition = store().partitionOf(a);
      await queueOutbound(store(), a, [botInitiated(a, 'a:0')], t0);
      const answersOnly = { answersOnly: true };
      expect(await store().claimMany('outbox', partition, leaseMs, t0 + 1, 2, answersOnly)).toEqual(
        [],
      );
      await queueOutbound(store(), b, [outboundMessage(b, 'b:0')], t0 + 2);
      const answers = await store().claimMany('outbox', partition, leaseMs, t0 + 3, 2, answersOnly);
      expect(phonesOf(answers)).toEqual([b]);
      // Still there for a claim that takes both bands.
      expect(phonesOf(await store().claimMany('outbox', partition, leaseMs, t0 + 4, 2))).toEqual([
        a,
      ]);
    });

    it('claims an outbox that holds an answer behind bot-initiated messages as an answer', async () => {
      const [a = '', b = ''] = phonesInOnePartition(store(), 2);
      const partition = store().partitionOf(a);
      await queueOutbound(store(), a, [botInitiated(a, 'a:0')], t0);
      await queueOutbound(store(), b, [botInitiated(b, 'b:0'), outboundMessage(b, 'b:1')], t0 + 1);
      const claims = await store().claimMany('outbox', partition, leaseMs, t0 + 2, 2, {
        answersOnly: true,
      });
      expect(phonesOf(claims)).toEqual([b]);
      // In order: the bot-initiated message first.
      expect(claims[0]?.view.message?.id).toBe('b:0');
    });

    it('keeps a deferred bot-initiated message behind the answers, ready at its own time', async () => {
      const [a = '', b = ''] = phonesInOnePartition(store(), 2);
      const partition = store().partitionOf(a);
      await queueOutbound(store(), a, [botInitiated(a, 'a:0')], t0);
      const [claim] = await store().claimMany('outbox', partition, leaseMs, t0, 1);
      expect(await store().deferOutbound(claim!, 'a:0', 1, t0 + 60_000)).toEqual({ ok: true });
      expect(await store().nextReadyAt('outbox', partition)).toBe(t0 + 60_000);
      expect(await store().claimMany('outbox', partition, leaseMs, t0 + 59_999, 1)).toEqual([]);
      await queueOutbound(store(), b, [outboundMessage(b, 'b:0')], t0 + 61_000);
      expect(
        phonesOf(await store().claimMany('outbox', partition, leaseMs, t0 + 62_000, 2)),
      ).toEqual([b, a]);
    });

    it('says when a bot-initiated outbox moved behind the answers is ready: at its own time', async () => {
      const [a = '', b = ''] = phonesInOnePartition(store(), 2);
      const partition = store().partitionOf(a);
      await queueOutbound(store(), a, [botInitiated(a, 'a:0')], t0);
      await queueOutbound(store(), b, [outboundMessage(b, 'b:0')], t0 + 5);
      // The answer is claimed; the bot-initiated outbox the claim passed keeps its time, t0.
      expect(phonesOf(await store().claimMany('outbox', partition, leaseMs, t0 + 10, 1))).toEqual([
        b,
      ]);
      expect(await store().nextReadyAt('outbox', partition)).toBe(t0);
    });
  });
}
