import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createManualClock, type ManualClock } from '../../../src/scheduler/create-manual-clock.ts';
import { createScheduler, type Scheduler } from '../../../src/scheduler/create-scheduler.ts';
import { createMemoryStore } from '../../../src/store/memory/create-memory-store.ts';
import type { Store } from '../../../src/store/store.ts';
import {
  commitTimers,
  keyOf,
  phonesInDistinctPartitions,
  t0,
  timerRecord,
} from '../../integration/store/contract/fixtures.ts';
import { advanceTogether } from '../../support/advance-together.ts';

/** The store as the scheduler sees it, counting its calls. */
function counted(store: Store) {
  const calls = { nextTimerDue: 0, claimDueTimers: 0, moved: 0 };
  const wrapped: Store = {
    ...store,
    async nextTimerDue(partition) {
      calls.nextTimerDue++;
      return store.nextTimerDue(partition);
    },
    async claimDueTimers(partition, now, limit) {
      calls.claimDueTimers++;
      const moved = await store.claimDueTimers(partition, now, limit);
      calls.moved += moved;
      return moved;
    },
  };
  return { store: wrapped, calls };
}

describe('a scheduler that waits instead of sweeping', () => {
  let clock: ManualClock;
  let scheduler: Scheduler | undefined;
  // Real time (fake timers) and the store's clock move together.
  const advance = (ms: number) => advanceTogether(clock, ms);
  beforeEach(() => {
    vi.useFakeTimers({ now: t0 });
    clock = createManualClock(t0);
  });
  afterEach(async () => {
    await scheduler?.stop();
    scheduler = undefined;
    vi.useRealTimers();
  });

  it('reads each partition once at start, then one a second, and claims nothing while no timer is due', async () => {
    const memory = createMemoryStore({});
    const { store, calls } = counted(memory);
    scheduler = createScheduler({ store, clock, logger: pino({ level: 'silent' }) });
    scheduler.start();
    await advance(10_000);
    expect(calls.claimDueTimers).toBe(0);
    // 16 at start, then about one per second.
    expect(calls.nextTimerDue).toBeGreaterThanOrEqual(store.partitions + 9);
    expect(calls.nextTimerDue).toBeLessThanOrEqual(store.partitions + 11);
  });

  it('fires a timer it was told of (armed) at its due time, not before', async () => {
    const memory = createMemoryStore({});
    const { store, calls } = counted(memory);
    scheduler = createScheduler({ store, clock, logger: pino({ level: 'silent' }) });
    scheduler.start();
    await advance(100);
    const [phone = ''] = phonesInDistinctPartitions(memory, 1);
    const dueAt = clock.now() + 5_000;
    await commitTimers(
      memory,
      phone,
      { set: [timerRecord(phone, 'reminder', dueAt)], cancel: [] },
      clock.now(),
    );
    scheduler.armed(memory.partitionOf(phone), dueAt);
    await advance(4_900);
    expect(calls.moved).toBe(0);
    await advance(100);
    expect(calls.moved).toBe(1);
    expect(await memory.pendingEvents(keyOf(phone))).toMatchObject([
      { kind: 'timer', timerId: 'run-1:reminder' },
    ]);
  });

  it('finds a timer set by another process through its safety reads, within one read per partition', async () => {
    const memory = createMemoryStore({});
    const { store, calls } = counted(memory);
    scheduler = createScheduler({ store, clock, logger: pino({ level: 'silent' }) });
    scheduler.start();
    await advance(100);
    const [phone = ''] = phonesInDistinctPartitions(memory, 1);
    const dueAt = clock.now() + 1_000;
    // Set in the store, and nobody tells this scheduler.
    await commitTimers(
      memory,
      phone,
      { set: [timerRecord(phone, 'reminder', dueAt)], cancel: [] },
      clock.now(),
    );
    await advance(1_000 * (store.partitions + 1));
    expect(calls.moved).toBe(1);
  });

  it('still moves every due timer at once on tick(), after the clock jumped', async () => {
    const memory = createMemoryStore({});
    const { store } = counted(memory);
    scheduler = createScheduler({ store, clock, logger: pino({ level: 'silent' }) });
    const phones = phonesInDistinctPartitions(memory, 3);
    for (const phone of phones) {
      await commitTimers(memory, phone, {
        set: [timerRecord(phone, 'r', t0 + 86_400_000)],
        cancel: [],
      });
    }
    scheduler.start();
    await advance(100);
    clock.advance('25h');
    expect(await scheduler.tick()).toBe(3);
  });

  it('fires the due partitions at once, not one round trip after another', async () => {
    const memory = createMemoryStore({});
    const phones = phonesInDistinctPartitions(memory, 3);
    for (const phone of phones) {
      await commitTimers(memory, phone, { set: [timerRecord(phone, 'r', t0 + 1_000)], cancel: [] });
    }
    // Each claim waits until every due partition's claim has started: one after the other,
    // the first would wait for ever.
    const due = new Set(phones.map((phone) => memory.partitionOf(phone)));
    const started = new Set<number>();
    let allStarted: () => void = () => {};
    const everyOne = new Promise<void>((resolve) => {
      allStarted = resolve;
    });
    const store: Store = {
      ...memory,
      async claimDueTimers(partition, now, limit) {
        if (due.has(partition)) {
          started.add(partition);
          if (started.size === due.size) allStarted();
          await everyOne;
        }
        return memory.claimDueTimers(partition, now, limit);
      },
    };
    scheduler = createScheduler({ store, clock, logger: pino({ level: 'silent' }) });
    scheduler.start();
    clock.advance(2_000);
    let ended = false;
    const tick = scheduler.tick().finally(() => {
      ended = true;
    });
    await vi.advanceTimersByTimeAsync(1_000);
    const endedInTime = ended;
    // Lets a scheduler that went one by one finish, so that it can stop.
    allStarted();
    expect(endedInTime).toBe(true);
    expect(await tick).toBe(3);
    expect(started).toEqual(due);
  });

  it('ends a round only when every partition’s call has ended, one of them failed or not', async () => {
    const memory = createMemoryStore({});
    const [failing = '', slow = ''] = phonesInDistinctPartitions(memory, 2);
    for (const phone of [failing, slow]) {
      await commitTimers(memory, phone, { set: [timerRecord(phone, 'r', t0 + 1_000)], cancel: [] });
    }
    let slowEnded = false;
    const store: Store = {
      ...memory,
      async claimDueTimers(partition, now, limit) {
        if (partition === memory.partitionOf(failing)) throw new Error('Redis went away');
        if (partition === memory.partitionOf(slow)) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          slowEnded = true;
        }
        return memory.claimDueTimers(partition, now, limit);
      },
    };
    scheduler = createScheduler({ store, clock, logger: pino({ level: 'silent' }) });
    clock.advance(2_000);
    const tick = scheduler.tick();
    // Whether the slow partition's call had ended when the round did.
    let slowEndedFirst: boolean | undefined;
    const outcome = tick.then(
      () => 'resolved',
      (error: Error) => {
        slowEndedFirst = slowEnded;
        return error.message;
      },
    );
    await vi.advanceTimersByTimeAsync(100);
    expect(await outcome).toBe('Redis went away');
    expect(slowEndedFirst).toBe(true);
    expect(await memory.pendingEvents(keyOf(slow))).toMatchObject([{ kind: 'timer' }]);
  });
});
