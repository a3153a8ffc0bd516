// replyflow's side, alone in its own process: the scheduler replyflow runs (createScheduler:
// sleeps until the earliest due time it read, then claimDueTimers on the partitions due, `limit`
// at a time, rounds at least `intervalMs` apart) until all planned timers are in their
// mailboxes. The process holds nothing per timer. Started by `index.ts`; answers `run` over IPC.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { createLogger } from '../../src/observability/logger.ts';
import { createScheduler } from '../../src/scheduler/create-scheduler.ts';
import { createRedisStore } from '../../src/store/redis/create-redis-store.ts';
import { redisOptionsForStore } from '../../src/store/redis/redis-options-for-store.ts';
import type { Store } from '../../src/store/store.ts';
import { serveParent } from '../lib/child.ts';
import { startMemoryPeak } from './memory-peak.ts';
import { firstDue, lastDueOf, type TimerPlan } from './timer-plan.ts';

const redis = new Redis(process.env.BENCH_REDIS_URL!, redisOptionsForStore());
const store = createRedisStore({
  redis,
  prefix: process.env.BENCH_PREFIX!,
  partitions: Number(process.env.BENCH_PARTITIONS),
});

interface RunRequest {
  plan: TimerPlan;
  /** The scheduler starts this long before the first due time. */
  leadMs: number;
  /** Timers moved per claimDueTimers call (the scheduler's `batch`). */
  limit: number;
  /** The scheduler's `intervalMs`: the shortest time between two rounds that move timers. */
  intervalMs: number;
  timeoutMs: number;
}

async function run({ plan, leadMs, limit, intervalMs, timeoutMs }: RunRequest) {
  await redis.ping();
  const memory = startMemoryPeak();
  // The store's clock: virtual time (the plan's), advancing with the real one from here.
  const startedAt = performance.now();
  const clock = { now: () => Math.floor(firstDue - leadMs + (performance.now() - startedAt)) };
  let moved = 0;
  let calls = 0;
  let doneAt = Number.NaN;
  // The store as the scheduler sees it, counting what it moves.
  const counted: Store = {
    ...store,
    async claimDueTimers(partition, now, batch) {
      const n = await store.claimDueTimers(partition, now, batch);
      calls++;
      moved += n;
      if (moved === plan.timers) doneAt = clock.now();
      return n;
    },
  };
  const logger = createLogger({ level: 'warn' });
  const scheduler = createScheduler({ store: counted, clock, logger, intervalMs, batch: limit });
  scheduler.start();
  let halfway = false;
  try {
    while (moved < plan.timers) {
      if (clock.now() - firstDue > timeoutMs)
        throw new Error(`only ${moved} moved after ${timeoutMs} ms`);
      if (!halfway && moved >= plan.timers / 2) {
        halfway = true;
        memory.live();
      }
      await sleep(10);
    }
  } finally {
    await scheduler.stop();
  }
  memory.live();
  return {
    moved,
    calls,
    /** From the last due time to the last timer moved, ms. */
    drainMs: doneAt - lastDueOf(plan),
    /** From the first due time to the last timer moved, ms. */
    spanMs: doneAt - firstDue,
    memory: memory.stop(),
  };
}

serveParent({ run: (message) => run(message as unknown as RunRequest) }, async () => {
  await store.close();
  redis.disconnect();
});
process.send?.({ type: 'ready' });
