import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemorySendLimiter } from '../../../src/store/memory/create-memory-send-limiter.ts';
import { createRedisSendLimiter } from '../../../src/store/redis/create-redis-send-limiter.ts';
import { randomPrefix, testRedisUrl } from '../../support/redis.ts';
import { recordScriptCommands } from '../../support/script-commands.ts';

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

  /**
   * How many script calls `run` made on a connection of its own (counted as ioredis sends them:
   * MONITOR would see every other test's traffic on the shared Redis too).
   */
  async function countScriptCalls(run: (redis: Redis) => Promise<void>): Promise<number> {
    const redis = new Redis(testRedisUrl());
    const sent = recordScriptCommands(redis);
    try {
      await run(redis);
      return sent.length;
    } finally {
      await redis.quit();
    }
  }

  it('keeps three processes of four lanes each, together, to the rate in every window', async () => {
    const prefix = randomPrefix('limit');
    const limiters = connections.map((redis) =>
      createRedisSendLimiter({ redis, prefix, location: 'paris', perSecond: 20 }),
    );
    const lag = monitorEventLoopDelay({ resolution: 1 });
    lag.enable();
    const stamps = await hammer(limiters, 4, 3_000);
    lag.disable();
    expect(stamps.length).toBeGreaterThanOrEqual(55);
    expect(stamps.length).toBeLessThanOrEqual(61);
    // 20 slots in a second, one more at its edge, and those of the longest stall of this
    // process's event loop, which stamps late the acquires that resolved during it.
    expect(busiest(stamps, 1_000)).toBeLessThanOrEqual(21 + Math.ceil((20 * lag.max) / 1e9));
  });

  it('at a high rate reserves its slots in batches, not one round trip per request', async () => {
    const prefix = randomPrefix('limit');
    const reservations = await countScriptCalls(async (redis) => {
      const limiter = createRedisSendLimiter({
        redis,
        prefix,
        location: 'paris',
        perSecond: 100_000,
      });
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
    // A stalled event loop stamps late the acquires that resolved meanwhile, bunching them:
    // the bound allows for the longest stall seen (other test files share the two cores).
    const lag = monitorEventLoopDelay({ resolution: 1 });
    lag.enable();
    const stamps = await hammer(limiters, 4, 2_000);
    lag.disable();
    const stallMs = lag.max / 1e6;
    expect(stamps.length).toBeGreaterThanOrEqual(1_000);
    // At most the slots of 1,020 ms (a held slot is spent at most 20 ms late), those of the
    // longest stall, and a few for the clocks' rounding.
    expect(busiest(stamps, 1_000)).toBeLessThanOrEqual(1_000 * (1.02 + stallMs / 1_000) + 5);
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
