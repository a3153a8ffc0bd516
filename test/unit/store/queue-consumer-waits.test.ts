import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createManualClock, type ManualClock } from '../../../src/scheduler/create-manual-clock.ts';
import {
  createQueueConsumer,
  type QueueConsumer,
} from '../../../src/store/create-queue-consumer.ts';
import { createMemoryStore } from '../../../src/store/memory/create-memory-store.ts';
import type { ClaimWithView, Store } from '../../../src/store/store.ts';
import {
  leaseMs,
  outboundMessage,
  phonesInDistinctPartitions,
  queueOutbound,
  t0,
} from '../../integration/store/contract/fixtures.ts';
import { advanceTogether } from '../../support/advance-together.ts';

/** The store as the consumer sees it, counting the calls that reach it. */
function counted(store: Store) {
  const calls = { claimMany: 0, nextReadyAt: 0 };
  const wrapped: Store = {
    ...store,
    async claimMany(...args) {
      calls.claimMany++;
      return store.claimMany(...args);
    },
    async nextReadyAt(queue, partition) {
      calls.nextReadyAt++;
      return store.nextReadyAt(queue, partition);
    },
  };
  return { store: wrapped, calls };
}

describe('an idle queue consumer', () => {
  let clock: ManualClock;
  let consumer: QueueConsumer<'outbox'> | undefined;
  // Real time (fake timers) and the store's clock move together.
  const advance = (ms: number) => advanceTogether(clock, ms);
  beforeEach(() => {
    vi.useFakeTimers({ now: t0 });
    clock = createManualClock(t0);
  });
  afterEach(async () => {
    await consumer?.stop();
    consumer = undefined;
    vi.useRealTimers();
  });

  function start(store: Store, handled: string[]) {
    consumer = createQueueConsumer({
      store,
      queue: 'outbox',
      clock,
      logger: pino({ level: 'silent' }),
      concurrency: 8,
      leaseMs,
      idleMs: 1_000,
      async handle(claim: ClaimWithView<'outbox'>) {
        handled.push(claim.phone);
        await store.release(claim, clock.now(), clock.now() + 3_600_000);
      },
    });
    consumer.start();
    return consumer;
  }

  it('claims each partition once at start, then reads one partition’s next ready time a second', async () => {
    const memory = createMemoryStore({});
    const { store, calls } = counted(memory);
    start(store, []);
    await advance(10_000);
    expect(calls.claimMany).toBe(store.partitions);
    // Every partition at start, then one per tick of the sweep.
    expect(calls.nextReadyAt).toBeGreaterThanOrEqual(store.partitions + 9);
    expect(calls.nextReadyAt).toBeLessThanOrEqual(store.partitions + 10);
  });

  it('takes announced work at once', async () => {
    const memory = createMemoryStore({});
    const handled: string[] = [];
    start(memory, handled);
    await advance(100);
    const [phone = ''] = phonesInDistinctPartitions(memory, 1);
    await queueOutbound(memory, phone, [outboundMessage(phone, 'e-1:0')], clock.now());
    await vi.advanceTimersByTimeAsync(0);
    expect(handled).toEqual([phone]);
  });

  it('sends one claim for a burst of announcements of a partition, and it takes the work of them all', async () => {
    const memory = createMemoryStore({});
    // Claims hang until the gate opens: the announcements all come while the first is in flight.
    let gate: Promise<void> | undefined;
    let open = () => {};
    const { store, calls } = counted({
      ...memory,
      async claimMany(...args) {
        if (gate) await gate;
        return memory.claimMany(...args);
      },
    });
    const handled: string[] = [];
    start(store, handled);
    await advance(100);
    const before = calls.claimMany;
    gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    // Five phones of one partition.
    const phones = [phonesInDistinctPartitions(memory, 1)[0] ?? ''];
    for (let n = 0; phones.length < 5; n++) {
      const phone = `3369876${String(n).padStart(4, '0')}`;
      if (memory.partitionOf(phone) === memory.partitionOf(phones[0]!)) phones.push(phone);
    }
    try {
      for (const [i, phone] of phones.entries()) {
        await queueOutbound(memory, phone, [outboundMessage(phone, `e-${i}:0`)], clock.now());
        await vi.advanceTimersByTimeAsync(0);
      }
      // Five announcements woke five lanes: one claim went out, the others passed it by.
      expect(calls.claimMany - before).toBe(1);
    } finally {
      gate = undefined;
      open();
    }
    await advance(100);
    expect(handled.sort()).toEqual([...phones].sort());
    expect(calls.claimMany - before).toBeLessThanOrEqual(2);
  });

  it('claims work it deferred itself when its time comes (wakeAt), not before', async () => {
    const memory = createMemoryStore({});
    const handled: string[] = [];
    const [phone = ''] = phonesInDistinctPartitions(memory, 1);
    const partition = memory.partitionOf(phone);
    await queueOutbound(memory, phone, [outboundMessage(phone, 'e-1:0')], clock.now());
    const claim = await memory.claim('outbox', partition, leaseMs, clock.now());
    await memory.deferOutbound(claim!, claim!.view.message!.id, 1, clock.now() + 3_000);
    start(memory, handled).wakeAt(partition, clock.now() + 3_000);
    await advance(2_950);
    expect(handled).toEqual([]);
    await advance(100);
    expect(handled).toEqual([phone]);
  });

  it('finds a lease nobody releases (its holder died) when it runs out, through the sweep', async () => {
    const memory = createMemoryStore({});
    const handled: string[] = [];
    const [phone = ''] = phonesInDistinctPartitions(memory, 1);
    await queueOutbound(memory, phone, [outboundMessage(phone, 'e-1:0')], clock.now());
    // A process that died holding the outbox for 5 s.
    await memory.claim('outbox', memory.partitionOf(phone), 5_000, clock.now());
    start(memory, handled);
    await advance(4_900);
    expect(handled).toEqual([]);
    await advance(200);
    expect(handled).toEqual([phone]);
  });
});
