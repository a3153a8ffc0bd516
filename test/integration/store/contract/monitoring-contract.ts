import { describe, expect, it } from 'vitest';
import type { Store } from '../../../../src/store/store.ts';
import {
  claimOf,
  conversationRecord,
  outboundMessage,
  phonesInDistinctPartitions,
  queueOutbound,
  startEvent,
  t0,
} from './fixtures.ts';

export function monitoringContract(store: () => Store): void {
  describe('ping and sample', () => {
    it('answers a ping while the backend is reachable', async () => {
      await expect(store().ping()).resolves.toBeUndefined();
    });

    it('samples nothing from an empty store', async () => {
      expect(await store().sample()).toEqual({
        active: [],
        scanned: 0,
        complete: true,
        outboxDepth: 0,
        deadLetters: 0,
      });
    });

    it('counts active conversations per bot and state, the outboxes waiting and the dead letters', async () => {
      const phones = phonesInDistinctPartitions(store(), 3);
      // queueOutbound commits conversationRecord: bot 'survey', state { asking: 'q1' }, active.
      for (const [i, phone] of phones.entries()) {
        await queueOutbound(store(), phone, [outboundMessage(phone, `m-${i}:0`)]);
      }
      await store().pushDeadLetter({ v: 1, at: t0, reason: 'test', body: '{' });
      const sample = await store().sample();
      expect(sample).toEqual({
        active: [{ bot: 'survey', state: 'asking.q1', count: 3 }],
        scanned: 3,
        complete: true,
        outboxDepth: 3,
        deadLetters: 1,
      });
    });

    it('looks at no more records than its limit, and says the count is partial', async () => {
      const phones = phonesInDistinctPartitions(store(), 4);
      for (const [i, phone] of phones.entries()) {
        await queueOutbound(store(), phone, [outboundMessage(phone, `m-${i}:0`)]);
      }
      const sample = await store().sample(2);
      expect(sample.scanned).toBe(2);
      expect(sample.complete).toBe(false);
      expect(sample.active).toEqual([{ bot: 'survey', state: 'asking.q1', count: 2 }]);
      // The cheap counts stay whole.
      expect(sample.outboxDepth).toBe(4);
    });

    it('leaves ended conversations out of the active count', async () => {
      const [active = '', ended = ''] = phonesInDistinctPartitions(store(), 2);
      await queueOutbound(store(), active, []);
      await store().ingest('n-end', [{ event: startEvent('e-end', ended) }], t0);
      const claim = await claimOf(store(), 'inbox', ended, t0);
      const record = { ...conversationRecord(ended, 1), status: 'done' as const };
      const step = { eventId: 'e-end', expectedSeq: 0, record, outbound: [] };
      expect((await store().commitStep(claim, step, t0)).ok).toBe(true);
      const sample = await store().sample();
      expect(sample.active).toEqual([{ bot: 'survey', state: 'asking.q1', count: 1 }]);
      expect(sample.scanned).toBe(2);
      expect(sample.outboxDepth).toBe(0);
    });
  });
}
