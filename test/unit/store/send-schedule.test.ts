import { describe, expect, it } from 'vitest';
import { createMemorySlotSchedule } from '../../../src/store/memory/create-memory-send-limiter.ts';
import {
  batchSize,
  limiterFromSchedule,
  type SendScheduleOptions,
  type SlotSchedule,
} from '../../../src/store/send-schedule.ts';

/** A clock that moves only when told, with sleeps that wake when it reaches them. */
function manualClock() {
  let time = 0;
  let sleepers: Array<{ at: number; wake: () => void }> = [];
  const flush = () => new Promise<void>((resolve) => setImmediate(resolve));
  const clock = {
    now: () => time,
    sleep: (ms: number) => new Promise<void>((wake) => sleepers.push({ at: time + ms, wake })),
    /** Moves the clock to `to`, waking the sleepers due on the way in order. */
    async advanceTo(to: number) {
      for (;;) {
        await flush();
        const due = sleepers.filter((s) => s.at <= to).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        time = Math.max(time, due.at);
        sleepers = sleepers.filter((s) => s !== due);
        due.wake();
      }
      time = Math.max(time, to);
      await flush();
    },
    /** Runs the clock until `promise` settles; resolves to its value and the time it did. */
    async until<T>(promise: Promise<T>): Promise<{ value: T; at: number }> {
      let settled = false;
      let at = 0;
      const watched = promise.finally(() => {
        settled = true;
        at = time;
      });
      for (let turns = 0; !settled; turns++) {
        if (turns > 100_000) throw new Error('never settled');
        await flush();
        const next = Math.min(...sleepers.map((s) => s.at));
        if (!settled && Number.isFinite(next)) await clock.advanceTo(next);
      }
      return { value: await watched, at };
    },
  };
  return clock;
}

/** The memory schedule on the manual clock, counting the calls it gets. */
function countedSchedule(clock: { now(): number }) {
  const inner = createMemorySlotSchedule(clock);
  const reserved: number[] = [];
  let checks = 0;
  const schedule: SlotSchedule = {
    reserve: (count, interval) => {
      reserved.push(count);
      return inner.reserve(count, interval);
    },
    pausedFor: () => {
      checks++;
      return inner.pausedFor();
    },
    pause: (ms) => inner.pause(ms),
  };
  return { schedule, inner, reserved, checks: () => checks };
}

function setup(rate: SendScheduleOptions) {
  const clock = manualClock();
  const counted = countedSchedule(clock);
  const limiter = limiterFromSchedule(counted.schedule, {
    ...rate,
    now: clock.now,
    sleep: clock.sleep,
  });
  return { clock, limiter, ...counted };
}

describe('batchSize', () => {
  it('fits the tolerance, between 1 and the most', () => {
    expect(batchSize(1000 / 20, 20, 64)).toBe(1);
    expect(batchSize(1000 / 50, 20, 64)).toBe(1);
    expect(batchSize(1000 / 1_000, 20, 64)).toBe(20);
    expect(batchSize(1000 / 1_000_000, 20, 64)).toBe(64);
    expect(batchSize(0, 20, 64)).toBe(64);
  });
});

describe('limiterFromSchedule', () => {
  it('makes one reservation per request at a low rate, as before batching', async () => {
    const { clock, limiter, reserved } = setup({ perSecond: 20 });
    const times: number[] = [];
    for (let i = 0; i < 5; i++) times.push((await clock.until(limiter.acquire())).at);
    expect(reserved).toEqual([1, 1, 1, 1, 1]);
    expect(times).toEqual([0, 50, 100, 150, 200]);
  });

  it('at a high rate reserves in batches, never going before a slot', async () => {
    const { clock, limiter, reserved } = setup({ perSecond: 100_000 });
    for (let i = 0; i < 1_000; i++) {
      const { at } = await clock.until(limiter.acquire());
      // The i-th slot of the schedule is i × 0.01 ms after the first, at 0.
      expect(at).toBeGreaterThanOrEqual(i * 0.01 - 1e-9);
    }
    expect(reserved.length).toBeLessThanOrEqual(Math.ceil(1_000 / 64));
    expect(reserved.every((count) => count === 64)).toBe(true);
  });

  it('drops held slots more than the tolerance late instead of spending them', async () => {
    const { clock, limiter, reserved } = setup({ perSecond: 1_000 });
    await clock.until(limiter.acquire()); // reserves slots 0..19, takes slot 0
    expect(reserved).toEqual([20]);
    await clock.advanceTo(25); // slots 1..4 are now more than 20 ms late
    for (let i = 0; i < 15; i++) {
      const { at } = await clock.until(limiter.acquire()); // slots 5..19, due already
      expect(at).toBe(25);
    }
    expect(reserved).toEqual([20]);
    const { at } = await clock.until(limiter.acquire());
    expect(at).toBe(25);
    // Slots 1..4 were dropped: had they been spent, this request would have had slot 16.
    expect(reserved).toEqual([20, 20]);
  });

  it('asks a seldom sender for only the slots it used', async () => {
    const { clock, limiter, reserved } = setup({ perSecond: 1_000 });
    for (let i = 0; i < 4; i++) {
      await clock.until(limiter.acquire());
      await clock.advanceTo(clock.now() + 100); // every held slot goes stale
    }
    // One slot of each reservation used: the next ones ask for two.
    expect(reserved).toEqual([20, 2, 2, 2]);
  });

  it('drops the held slots a pause covers, and reserves after its end', async () => {
    const { clock, limiter, reserved } = setup({ perSecond: 1_000 });
    await clock.until(limiter.acquire()); // slots 0..19 reserved, 0 taken
    await limiter.pause(10); // slots 1..9 fall inside the pause
    expect((await clock.until(limiter.acquire())).at).toBe(10);
    for (let i = 11; i < 20; i++) await clock.until(limiter.acquire());
    expect(reserved).toEqual([20]);
    await limiter.pause(100); // from 19: nothing held, the schedule moves to 119
    expect((await clock.until(limiter.acquire())).at).toBe(119);
    expect(reserved).toEqual([20, 20]);
  });

  it('shares one reservation in flight between concurrent acquires, first come first served', async () => {
    const clock = manualClock();
    const inner = createMemorySlotSchedule(clock);
    const pending: Array<() => void> = [];
    const reserved: number[] = [];
    const limiter = limiterFromSchedule(
      {
        reserve: (count, interval) =>
          new Promise((resolve) => {
            reserved.push(count);
            pending.push(() => resolve(inner.reserve(count, interval)));
          }),
        pausedFor: () => inner.pausedFor(),
        pause: (ms) => inner.pause(ms),
      },
      { perSecond: 1_000, now: clock.now, sleep: clock.sleep },
    );
    const order: number[] = [];
    const all = Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        limiter.acquire().then(() => {
          order.push(i);
          return clock.now();
        }),
      ),
    );
    await clock.advanceTo(0);
    expect(reserved).toEqual([20]);
    pending.shift()!();
    const { value: times } = await clock.until(all);
    expect(reserved).toEqual([20]);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(times).toEqual([0, 1, 2, 3, 4]);
  });

  it('keeps one reservation in flight when each holds a single slot', async () => {
    const clock = manualClock();
    const inner = createMemorySlotSchedule(clock);
    let inFlight = 0;
    let most = 0;
    let calls = 0;
    const limiter = limiterFromSchedule(
      {
        reserve: async (count, interval) => {
          calls++;
          most = Math.max(most, ++inFlight);
          await new Promise((resolve) => setImmediate(resolve));
          inFlight--;
          return inner.reserve(count, interval);
        },
        pausedFor: () => inner.pausedFor(),
        pause: (ms) => inner.pause(ms),
      },
      { perSecond: 20, now: clock.now, sleep: clock.sleep },
    );
    const { value: times } = await clock.until(
      Promise.all([0, 1, 2].map(() => limiter.acquire().then(() => clock.now()))),
    );
    expect(times).toEqual([0, 50, 100]);
    expect(calls).toBe(3);
    expect(most).toBe(1);
  });

  it('checks for a pause after a long wait only, and waits it out', async () => {
    const { clock, limiter, inner, checks } = setup({ perSecond: 1_000 });
    await inner.reserve(1, 100); // another process holds the schedule until 100
    const first = limiter.acquire();
    await clock.advanceTo(50);
    await inner.pause(200); // another process heard a 429: paused until 250
    expect((await clock.until(first)).at).toBe(250);
    expect(checks()).toBe(1);
    // The next held slots are due: no check.
    for (let i = 0; i < 5; i++) await clock.until(limiter.acquire());
    expect(checks()).toBe(1);
  });

  it('gives an answer the next slot but one while bot-initiated requests keep the schedule full (20/s)', async () => {
    const { clock, limiter, reserved } = setup({ perSecond: 20 });
    // Ten bot-initiated requests wait at once, as the sender's lanes do behind a campaign.
    const bulk = Array.from({ length: 10 }, () =>
      limiter.acquire({ bulk: true }).then(() => clock.now()),
    );
    await clock.advanceTo(60);
    // Only the bulk slot after the one just spent (100) is out: the answer has the next, 150.
    const { at } = await clock.until(limiter.acquire());
    expect(at).toBe(150);
    const { value: times } = await clock.until(Promise.all(bulk));
    // Bulk traffic alone keeps the rate: every slot but the answer's went to it.
    expect(times).toEqual([0, 50, 100, 200, 250, 300, 350, 400, 450, 500]);
    expect(reserved.every((count) => count === 1)).toBe(true);
  });

  it('keeps at most one batch of slots out for bot-initiated requests at a high rate', async () => {
    const { clock, limiter } = setup({ perSecond: 1_000 });
    const bulk = Array.from({ length: 200 }, () =>
      limiter.acquire({ bulk: true }).then(() => clock.now()),
    );
    await clock.advanceTo(50.5);
    // A batch is 20 slots (20 ms): the answer goes within that of the time it came.
    const { at } = await clock.until(limiter.acquire());
    expect(at).toBeGreaterThanOrEqual(50.5);
    expect(at).toBeLessThanOrEqual(50.5 + 21);
    const { value: times } = await clock.until(Promise.all(bulk));
    // 200 bulk slots and the answer's: the rate was kept (the last one at about 200 ms).
    expect(Math.max(...times)).toBeLessThanOrEqual(201);
  });

  it('serves waiting answers before waiting bot-initiated requests from the slots it holds', async () => {
    const { clock, limiter } = setup({ perSecond: 1_000 });
    const order: string[] = [];
    const all = Promise.all([
      ...Array.from({ length: 30 }, (_, i) =>
        limiter.acquire({ bulk: true }).then(() => order.push(`bulk ${i}`)),
      ),
      ...Array.from({ length: 3 }, (_, i) =>
        limiter.acquire().then(() => order.push(`answer ${i}`)),
      ),
    ]);
    await clock.until(all);
    // The first reservation's slots went to the answers before the bulk requests' second ones.
    expect(order.indexOf('answer 2')).toBeLessThan(order.indexOf('bulk 20'));
  });

  it('fails the waiting acquires when a reservation fails, and tries again on the next', async () => {
    const clock = manualClock();
    let fail = true;
    const inner = createMemorySlotSchedule(clock);
    const limiter = limiterFromSchedule(
      {
        reserve: async (count, interval) => {
          if (fail) throw new Error('Redis is down');
          return inner.reserve(count, interval);
        },
        pausedFor: () => inner.pausedFor(),
        pause: (ms) => inner.pause(ms),
      },
      { perSecond: 1_000, now: clock.now, sleep: clock.sleep },
    );
    const failed = await Promise.allSettled([
      limiter.acquire(),
      limiter.acquire({ bulk: true }),
      limiter.acquire({ bulk: true }),
    ]);
    expect(failed.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
    fail = false;
    expect((await clock.until(limiter.acquire())).at).toBe(0);
  });
});
