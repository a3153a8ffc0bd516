import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/scheduler/clock.ts';
import {
  createQueueConsumer,
  type QueueConsumer,
} from '../../../src/store/create-queue-consumer.ts';
import { createMemoryStore } from '../../../src/store/memory/create-memory-store.ts';
import type { ClaimWithView } from '../../../src/store/store.ts';
import {
  leaseMs,
  outboundMessage,
  queueOutbound,
} from '../../integration/store/contract/fixtures.ts';
import { waitFor } from '../../support/wait-for.ts';

const phone = (i: number) => `3361234${String(i).padStart(4, '0')}`;

describe('a queue consumer with answers first', () => {
  let consumer: QueueConsumer<'outbox'> | undefined;
  afterEach(async () => {
    await consumer?.stop();
    consumer = undefined;
  });

  it('claims an answer at once while every other lane waits with bot-initiated work, and leaves that work to them', async () => {
    const store = createMemoryStore({});
    const now = systemClock.now();
    // Ten outboxes of bot-initiated messages: more than the lanes.
    for (let i = 0; i < 10; i++) {
      await queueOutbound(
        store,
        phone(i),
        [{ ...outboundMessage(phone(i), `bulk-${i}:0`), botInitiated: true }],
        now,
      );
    }
    const handled: Array<{ phone: string; lane: 'bulk' | 'answer' }> = [];
    let openBulk = () => {};
    const bulkGate = new Promise<void>((resolve) => {
      openBulk = resolve;
    });
    consumer = createQueueConsumer({
      store,
      queue: 'outbox',
      clock: systemClock,
      logger: pino({ level: 'silent' }),
      concurrency: 4,
      leaseMs,
      idleMs: 1_000,
      answersFirst: { isBulk: (claim) => claim.view.message?.botInitiated === true, lanes: 1 },
      async handle(claim: ClaimWithView<'outbox'>) {
        const bulk = claim.view.message?.botInitiated === true;
        handled.push({ phone: claim.phone, lane: bulk ? 'bulk' : 'answer' });
        // Bot-initiated work waits (for its rate-limit slot, say) until the test lets it go.
        if (bulk) await bulkGate;
        await store.recordSent(
          claim,
          claim.view.message!.id,
          {
            v: 1,
            smsId: `sms-${claim.phone}`,
            location: claim.location,
            phone: claim.phone,
            status: 'pending',
            statusReason: '',
            outboxId: claim.view.message!.id,
          },
          systemClock.now(),
        );
      },
    });
    consumer.start();
    // Three lanes took bot-initiated outboxes and wait; the fourth, an answer lane, took none.
    await waitFor(() => handled.length === 3, { message: 'three bulk claims handled' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(handled.map((h) => h.lane)).toEqual(['bulk', 'bulk', 'bulk']);

    await queueOutbound(store, phone(99), [outboundMessage(phone(99), 'answer:0')], now + 1);
    await waitFor(() => handled.some((h) => h.phone === phone(99)), {
      timeout: 1_000,
      message: 'the answer claimed while the bulk lanes wait',
    });
    expect(handled).toHaveLength(4);

    openBulk();
    await waitFor(() => handled.length === 11, { message: 'every bot-initiated outbox sent' });
    expect(handled.filter((h) => h.lane === 'bulk')).toHaveLength(10);
  });
});
