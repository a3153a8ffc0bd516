import { describe, expect, it } from 'vitest';
import type { Store } from '../../../../src/store/store.ts';
import {
  claimOf,
  claimStartAndReply,
  conversationRecord,
  outboundMessage,
  phonesInDistinctPartitions,
  queueOutbound,
  sentRecord,
  t0,
} from './fixtures.ts';

export function countersContract(store: () => Store): void {
  describe('counters', () => {
    it('moves counters in the commit; a gauge field (ttlMs 0) counted down to 0 is gone', async () => {
      const { phone, claim } = await claimStartAndReply(store());
      const record = conversationRecord(phone, 1);
      const result = await store().commitStep(
        claim,
        {
          eventId: 'e-1',
          expectedSeq: 0,
          record,
          outbound: [],
          counters: [
            { name: 'act:test', field: 'q1', by: 1, ttlMs: 0 },
            { name: 'act:test', field: 'q2', by: 1, ttlMs: 0 },
            { name: 'act:test', field: 'q2', by: -1, ttlMs: 0 },
            { name: 'tot:test', field: 'started', by: 1 },
          ],
        },
        t0 + 5,
      );
      expect(result.ok).toBe(true);
      expect(await store().readCounters('act:test')).toEqual({ q1: 1 });
      expect(await store().readCounters('tot:test')).toEqual({ started: 1 });
    });

    it('moves recordSent counters once per message, however often the send is recorded', async () => {
      const [phone = ''] = phonesInDistinctPartitions(store(), 1);
      const message = outboundMessage(phone, 'e-0:0');
      await queueOutbound(store(), phone, [message, outboundMessage(phone, 'e-0:1')]);
      const claim = await claimOf(store(), 'outbox', phone, t0);
      const sent = [{ name: 'tot:test', field: 'sent', by: 1 }];
      const record = sentRecord(phone, 'sms-1', message.id);
      await store().recordSent(claim, message.id, record, t0, sent);
      await store().recordSent(claim, message.id, record, t0, sent);
      expect(await store().readCounters('tot:test')).toEqual({ sent: 1 });
      await store().recordSent(claim, 'e-0:1', sentRecord(phone, 'sms-2', 'e-0:1'), t0, sent);
      expect(await store().readCounters('tot:test')).toEqual({ sent: 2 });
    });
  });
}
