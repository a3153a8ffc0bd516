import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemorySendLimiter } from '../../../src/store/memory/create-memory-send-limiter.ts';
import { createRedisSendLimiter } from '../../../src/store/redis/create-redis-send-limiter.ts';
import { randomPrefix, testRedisUrl } from '../../support/redis.ts';

/** The most timestamps in any window of `ms`. */
function busiest(stamps: number[], ms: number): number {
  const sorted = [...stamps].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= ms) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/** `lanes` loops per limiter acquiring as fast as they can for `ms`; returns when each got through. */
async function hammer(
  limiters: Array<{ acquire(): Promise<void> }>,
  lanes: number,
  ms: number,
): Promise<number[]> {
  const stamps: number[] = [];
  const end = Date.now() + ms;
  await Promise.all(
    limiters.flatMap((limiter) =>
      Array.from({ length: lanes }, async () => {
        while (Date.now() < end) {
          await limiter.acquire();
          if (Date.now() < end) stamps.push(Date.now());
        }
      }),
    ),
  );
  return stamps;
}

describe('the send limiter shared by processes on Redis', () => {
  const connections = [0, 1, 2].map(() => new Redis(testRedisUrl()));
  afterAll(() => Promise.all(connections.map((c) => c.quit())));

  /** How many script calls touching `prefix`'s keys Redis ran during `run` (seen by MONITOR). */
  async function countScriptCalls(prefix: string, run: () => Promise<void>): Promise<number> {
    const monitor = await new Redis(testRedisUrl()).monitor();
    const marker = `${prefix}monitor-done`;
    let calls = 0;
    const done = new Promise<void>((resolve) => {
      monitor.on('monitor', (_time: string, args: string[]) => {
        const command = args[0]?.toLowerCase();
        if ((command === 'evalsha' || command === 'eval') && args.some((a) => a.startsWith(prefix)))
          calls++;
        if (command === 'get' && args[1] === marker) resolve();
      });
    });
    try {
      await run();
      await connections[0]!.get(marker);
      await done;
      return calls;
    } finally {
      monitor.disconnect();
    }
  }

  it('keeps three processes of four lanes each, together, to the rate in every window', async () => {
    const prefix = randomPrefix('limit');
    const limiters = connections.map((redis) =>
      createRedisSendLimiter({ redis, prefix, location: 'paris', perSecond: 20 }),
    );
    const stamps = await hammer(limiters, 4, 3_000);
    expect(stamps.length).toBeGreaterThanOrEqual(55);
    expect(stamps.length).toBeLessThanOrEqual(61);
    expect(busiest(stamps, 1_000)).toBeLessThanOrEqual(21);
  });

  it('at a high rate reserves its slots in batches, not one round trip per request', async () => {
    const prefix = randomPrefix('limit');
    const limiter = createRedisSendLimiter({
      redis: connections[0]!,
      prefix,
      location: 'paris',
      perSecond: 100_000,
    });
    const reservations = await countScriptCalls(prefix, async () => {
      for (let i = 0; i < 1_000; i++) await limiter.acquire();
    });
    expect(reservations).toBeGreaterThan(0);
    expect(reservations).toBeLessThanOrEqual(Math.ceil(1_000 / 64) + 8);
  });

  it('keeps the rate with batches too: three processes of four lanes at 1,000/s', async () => {
    const prefix = randomPrefix('limit');
    const limiters = connections.map((redis) =>
      createRedisSendLimiter({ redis, prefix, location: 'paris', perSecond: 1_000 }),
    );
    const stamps = await hammer(limiters, 4, 2_000);
    expect(stamps.length).toBeGreaterThanOrEqual(1_000);
    // At most the slots of 1,020 ms (a held slot is spent at most 20 ms late), and a few for the
    // clocks' rounding.
    expect(busiest(stamps, 1_000)).toBeLessThanOrEqual(1_000 * 1.02 + 5);
  });

  it('holds every process back for a pause, including slots reserved before it', async () => {
    const prefix = randomPrefix('limit');
    const [a, b] = connections.map((redis) =>
      createRedisSendLimiter({ redis, prefix, location: 'paris', perSecond: 10 }),
    );
    // Reserve a few slots ahead, then pause from the other process.
    const early = Promise.all(
      [a!.acquire(), a!.acquire(), a!.acquire()].map((p) => p.then(() => Date.now())),
    );
    const pausedAt = Date.now();
    await b!.pause(600);
    const times = await early;
    const late = times.filter((t) => t > pausedAt + 50);
    expect(late.every((t) => t >= pausedAt + 550)).toBe(true);
    await b!.acquire();
    expect(Date.now()).toBeGreaterThanOrEqual(pausedAt + 550);
  });

  it('keeps separate locations apart', async () => {
    const prefix = randomPrefix('limit');
    const paris = createRedisSendLimiter({
      redis: connections[0]!,
      prefix,
      location: 'paris',
      perSecond: 2,
    });
    const lyon = createRedisSendLimiter({
      redis: connections[1]!,
      prefix,
      location: 'lyon',
      perSecond: 2,
    });
    await paris.pause(5_000);
    const started = Date.now();
    await lyon.acquire();
    expect(Date.now() - started).toBeLessThan(200);
  });
});

describe('the send limiter in memory', () => {
  it('spaces one process evenly and honours a pause', async () => {
    const limiter = createMemorySendLimiter(20);
    const stamps = await hammer([limiter], 4, 1_500);
    expect(busiest(stamps, 1_000)).toBeLessThanOrEqual(21);
    const pausedAt = Date.now();
    await limiter.pause(300);
    await limiter.acquire();
    expect(Date.now()).toBeGreaterThanOrEqual(pausedAt + 290);
  });
});
