import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../../src/scheduler/create-manual-clock.ts';
import { createQueueConsumer } from '../../../src/store/create-queue-consumer.ts';
import { createMemoryStore } from '../../../src/store/memory/create-memory-store.ts';
import type { ClaimWithView, Store } from '../../../src/store/store.ts';
import {
  leaseMs,
  outboundMessage,
  phonesInDistinctPartitions,
  queueOutbound,
  t0,
} from '../../integration/store/contract/fixtures.ts';

describe('a queue consumer that stops', () => {
  it('releases every claim handed to it that no lane handled, so any process may take them at once', async () => {
    const store = createMemoryStore({});
    const clock = createManualClock(t0);
    const phones = phonesInDistinctPartitions(store, 4);
    for (const [i, phone] of phones.entries()) {
      await queueOutbound(store, phone, [outboundMessage(phone, `m-${i}:0`)]);
    }
    // Claims made elsewhere in the process (as a worker's commit hands its outbox to the sender).
    const claims: ClaimWithView<'outbox'>[] = [];
    for (const phone of phones) {
      const claim = await store.claim('outbox', store.partitionOf(phone), leaseMs, t0);
      claims.push(claim!);
    }
    let unblock = () => {};
    const blocked = new Promise<void>((resolve) => {
      unblock = resolve;
    });
    const handled: string[] = [];
    let started = () => {};
    const firstStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const consumer = createQueueConsumer({
      store,
      queue: 'outbox',
      clock,
      logger: pino({ level: 'silent' }),
      concurrency: 1,
      leaseMs,
      idleMs: 60_000,
      async handle(claim) {
        handled.push(claim.phone);
        started();
        await blocked;
        await store.release(claim, clock.now());
      },
    });
    consumer.start();
    expect(consumer.reserve(4)).toBe(1);
    consumer.unreserve(1);
    // The lane takes the first; the others wait in the hand-off queue.
    for (const claim of claims) consumer.offer(claim, t0);
    await firstStarted;
    const stopped = consumer.stop();
    unblock();
    await stopped;
    expect(handled).toHaveLength(1);

    // Every outbox is claimable again at once, and none was taken over (which would put its
    // head in doubt and make it wait out the grace).
    for (const phone of phones) {
      const again = await store.claim('outbox', store.partitionOf(phone), leaseMs, t0 + 1);
      expect(again, `outbox of ${phone}`).toMatchObject({ phone });
      expect(again?.view.takenOver).toBeUndefined();
    }
  });

  it('ends a lane whose claim was in flight when it stopped, without its idle sleep (a stop that waited 60 s)', async () => {
    const store = createMemoryStore({});
    const clock = createManualClock(t0);
    // The lane's first claim is held until the test lets it answer (a slow Redis).
    let answer = () => {};
    let asked = () => {};
    const claimAsked = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const slow: Store = Object.create(store);
    slow.claimMany = (async (...args: Parameters<Store['claimMany']>) => {
      asked();
      await new Promise<void>((resolve) => {
        answer = resolve;
      });
      return store.claimMany(...args);
    }) as Store['claimMany'];
    const consumer = createQueueConsumer({
      store: slow,
      queue: 'outbox',
      clock,
      logger: pino({ level: 'silent' }),
      concurrency: 1,
      leaseMs,
      idleMs: 60_000,
      async handle() {},
    });
    consumer.start();
    await claimAsked;
    // Stopped while the claim is in flight: it finds nothing, and the lane must end rather
    // than sleep its 60 s (past this test's time-out).
    const stopped = consumer.stop();
    answer();
    await stopped;
    expect(consumer.running).toBe(false);
  });
});
