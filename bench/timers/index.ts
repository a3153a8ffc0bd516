import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { createRedisStore } from '../../src/store/redis/create-redis-store.ts';
import type { Benchmark } from '../lib/benchmark.ts';
import { startChild } from '../lib/child.ts';
import { machineInfo } from '../lib/machine.ts';
import { deleteKeys, openBenchRedis, randomPrefix } from '../lib/redis.ts';
import { fixed, markdownTable, median } from '../lib/stats.ts';
import { type Lateness, latenessOf } from './lateness.ts';
import type { MemoryReport } from './memory-peak.ts';
import { collectFired, firstDue, setPlannedTimers, type TimerPlan } from './timer-plan.ts';

type Variant = 'replyflow' | 'setTimeout';
type Scenario = 'spread' | 'burst';

interface Settings {
  runs: number;
  timers: number;
  perConversation: number;
  spreadSeconds: number;
  limit: number;
  intervalMs: number;
  partitions: number;
  /** Both variants start this long before the first due time (scheduling 100k setTimeouts takes a while). */
  leadMs: number;
}

interface RunResult {
  scenario: Scenario;
  variant: Variant;
  run: number;
  /** From the last due time to the last timer fired/moved, ms. */
  drainMs: number;
  /** Timers per second from the first due time to the last one moved. */
  throughput: number;
  lateness: Lateness;
  memory: MemoryReport;
  /** replyflow: claimDueTimers calls; Redis used_memory added by setting the timers (MiB). */
  calls?: number;
  redisMiB?: number;
  setupS?: number;
}

const usage = `timers [--runs 3] [--timers 100000] [--per-conversation 4] [--spread-seconds 60]
       [--limit 500] [--interval-ms 100] [--partitions 16] [--lead-ms 2000]`;

const benchmark: Benchmark = {
  name: 'timers',
  description:
    "100k durable timers due within one minute (and all at once) moved into mailboxes by one process's scheduler: lateness, throughput, memory; vs one setTimeout per timer",
  run,
};
export default benchmark;

function parseSettings(args: readonly string[]): Settings {
  const options = {
    runs: '3',
    timers: '100000',
    'per-conversation': '4',
    'spread-seconds': '60',
    limit: '500',
    'interval-ms': '100',
    partitions: '16',
    'lead-ms': '2000',
  };
  const { values } = parseArgs({
    args: [...args],
    options: {
      ...Object.fromEntries(
        Object.entries(options).map(([name, value]) => [name, { type: 'string', default: value }]),
      ),
      help: { type: 'boolean', default: false },
    } as Record<string, { type: 'string' | 'boolean'; default: string | boolean }>,
  });
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  const number = (name: keyof typeof options) => {
    const value = Number(values[name]);
    if (!Number.isInteger(value) || value < 0) {
      throw new Error(`--${name} must be a whole number, got '${values[name]}'\n${usage}`);
    }
    return value;
  };
  return {
    runs: number('runs'),
    timers: number('timers'),
    perConversation: number('per-conversation'),
    spreadSeconds: number('spread-seconds'),
    limit: number('limit'),
    intervalMs: number('interval-ms'),
    partitions: number('partitions'),
    leadMs: number('lead-ms'),
  };
}

async function run(args: readonly string[]): Promise<void> {
  const settings = parseSettings(args);
  const machine = machineInfo();
  const started = Date.now();
  const redis = await openBenchRedis();
  const client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  console.log(
    `timers: ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.memoryGiB} GiB, Node ${machine.node}, ` +
      `Redis ${redis.version} (${redis.origin}), load average ${machine.loadAverage.join(' ')}`,
  );
  const results: RunResult[] = [];
  try {
    for (let r = 1; r <= settings.runs; r++) {
      for (const scenario of ['spread', 'burst'] as const) {
        const plan: TimerPlan = {
          timers: settings.timers,
          perConversation: settings.perConversation,
          spreadMs: scenario === 'spread' ? settings.spreadSeconds * 1000 : 0,
        };
        // Alternate which variant goes first, so a drift of the machine favours neither.
        const order: Variant[] =
          r % 2 === 1 ? ['replyflow', 'setTimeout'] : ['setTimeout', 'replyflow'];
        for (const variant of order) {
          const result =
            variant === 'replyflow'
              ? await runReplyflow(plan, settings, client, redis.url)
              : await runSetTimeout(plan, settings);
          results.push({ ...result, scenario, variant, run: r });
          console.log(describe(results.at(-1)!));
        }
      }
    }
  } finally {
    client.disconnect();
    await redis.stop();
  }
  console.log(`\n${summarize(results, settings)}\n`);
  mkdirSync(new URL('../results/', import.meta.url), { recursive: true });
  const file = new URL(
    `../results/timers-${new Date(started).toISOString().replace(/[:.]/g, '-')}.json`,
    import.meta.url,
  );
  const machineAtEnd = { ...machine, loadAverageAtEnd: os.loadavg(), redis: redis.version };
  writeFileSync(file, `${JSON.stringify({ machine: machineAtEnd, settings, results }, null, 2)}\n`);
  console.log(`raw results: ${file.pathname} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
}

type Measured = Omit<RunResult, 'scenario' | 'variant' | 'run'>;

async function runReplyflow(
  plan: TimerPlan,
  settings: Settings,
  client: Redis,
  redisUrl: string,
): Promise<Measured> {
  const prefix = randomPrefix('bench-timers');
  const store = createRedisStore({ redis: client, prefix, partitions: settings.partitions });
  const usedMemory = async () =>
    Number(/used_memory:(\d+)/.exec(await client.info('memory'))?.[1]) / 2 ** 20;
  const setupStarted = Date.now();
  const before = await usedMemory();
  await setPlannedTimers(store, plan, firstDue - 3_600_000);
  const redisMiB = (await usedMemory()) - before;
  const setupS = (Date.now() - setupStarted) / 1000;
  const child = await startChild(new URL('./claim-loop-process.ts', import.meta.url), [], {
    env: {
      BENCH_REDIS_URL: redisUrl,
      BENCH_PREFIX: prefix,
      BENCH_PARTITIONS: String(settings.partitions),
    },
    execArgv: ['--expose-gc'],
  });
  try {
    const outcome = await child.ask<{
      drainMs: number;
      spanMs: number;
      calls: number;
      memory: MemoryReport;
    }>('run', {
      plan,
      leadMs: settings.leadMs,
      limit: settings.limit,
      intervalMs: settings.intervalMs,
      timeoutMs: plan.spreadMs + 300_000,
    });
    const lateness = await collectFired(store, plan);
    return {
      drainMs: outcome.drainMs,
      throughput: (plan.timers / Math.max(outcome.spanMs, 1)) * 1000,
      lateness: latenessOf(lateness),
      memory: outcome.memory,
      calls: outcome.calls,
      redisMiB,
      setupS,
    };
  } finally {
    await child.close();
    await store.close();
    await deleteKeys(client, prefix);
  }
}

async function runSetTimeout(plan: TimerPlan, settings: Settings): Promise<Measured> {
  const child = await startChild(new URL('./set-timeout-process.ts', import.meta.url), [], {
    execArgv: ['--expose-gc'],
  });
  try {
    const outcome = await child.ask<{
      drainMs: number;
      lateness: RunResult['lateness'];
      memory: MemoryReport;
    }>('run', { plan, leadMs: settings.leadMs });
    const spanMs = plan.spreadMs + outcome.drainMs;
    return {
      drainMs: outcome.drainMs,
      throughput: (plan.timers / Math.max(spanMs, 1)) * 1000,
      lateness: outcome.lateness,
      memory: outcome.memory,
    };
  } finally {
    await child.close();
  }
}

const heapDelta = (r: RunResult) => r.memory.heapPeakMiB - r.memory.heapIdleMiB;
const liveDelta = (r: RunResult) => r.memory.heapLiveMiB - r.memory.heapIdleMiB;
const rssDelta = (r: RunResult) => r.memory.rssPeakMiB - r.memory.rssIdleMiB;

function describe(r: RunResult): string {
  return (
    `run ${r.run} ${r.scenario} ${r.variant}: drain ${fixed(r.drainMs, 0)} ms after the last due time, ` +
    `${fixed(r.throughput, 0)} timers/s, lateness p50 ${fixed(r.lateness.p50, 0)} / p99 ${fixed(r.lateness.p99, 0)} / ` +
    `max ${fixed(r.lateness.max, 0)} ms, live heap +${fixed(liveDelta(r))} MiB, heap peak +${fixed(heapDelta(r))} MiB, RSS +${fixed(rssDelta(r))} MiB ` +
    `(peak ${fixed(r.memory.maxRssMiB)} MiB)` +
    (r.calls === undefined
      ? ''
      : `, ${r.calls} claim calls, Redis +${fixed(r.redisMiB)} MiB, setup ${fixed(r.setupS)} s`)
  );
}

function summarize(results: readonly RunResult[], settings: Settings): string {
  const columns: Array<[Scenario, Variant]> = [
    ['spread', 'replyflow'],
    ['spread', 'setTimeout'],
    ['burst', 'replyflow'],
    ['burst', 'setTimeout'],
  ];
  const of = (scenario: Scenario, variant: Variant, pick: (r: RunResult) => number) =>
    median(results.filter((r) => r.scenario === scenario && r.variant === variant).map(pick));
  const rows: Array<[string, (r: RunResult) => number, number]> = [
    ['all moved, ms after the last due time', (r) => r.drainMs, 0],
    ['throughput, timers/s (first due → all moved)', (r) => r.throughput, 0],
    ['lateness p50, ms', (r) => r.lateness.p50, 0],
    ['lateness p99, ms', (r) => r.lateness.p99, 0],
    ['lateness max, ms', (r) => r.lateness.max, 0],
    ['live heap (after GC) at most − idle, MiB', liveDelta, 1],
    ['heapUsed peak − idle, MiB', heapDelta, 1],
    ['RSS peak − idle, MiB', rssDelta, 1],
    ['peak RSS of the process, MiB', (r) => r.memory.maxRssMiB, 1],
    ['claimDueTimers calls', (r) => r.calls ?? Number.NaN, 0],
    ['Redis used_memory for the timers + conversations, MiB', (r) => r.redisMiB ?? Number.NaN, 1],
  ];
  const table = markdownTable(
    ['median', ...columns.map(([scenario, variant]) => `${scenario}: ${variant}`)],
    rows.map(([label, pick, decimals]) => [
      label,
      ...columns.map(([scenario, variant]) => fixed(of(scenario, variant, pick), decimals)),
    ]),
  );
  const ratio = (scenario: Scenario, pick: (r: RunResult) => number) =>
    fixed(of(scenario, 'setTimeout', pick) / of(scenario, 'replyflow', pick), 1);
  return [
    `medians of ${settings.runs} runs; ${settings.timers} timers (${settings.perConversation} per conversation, ` +
      `${settings.partitions} partitions); spread: due evenly over ${settings.spreadSeconds} s; burst: all due at once; ` +
      `one process's scheduler (createScheduler): reads each partition's earliest due time at start, sleeps until the earliest, ` +
      `claimDueTimers on the partitions due (${settings.limit} per call), rounds at least ${settings.intervalMs} ms apart`,
    table,
    `setTimeout ÷ replyflow, live heap growth: spread ${ratio('spread', liveDelta)}×, burst ${ratio('burst', liveDelta)}×; ` +
      `heapUsed peak growth: spread ${ratio('spread', heapDelta)}×, burst ${ratio('burst', heapDelta)}×; ` +
      `RSS growth: spread ${ratio('spread', rssDelta)}×, burst ${ratio('burst', rssDelta)}×`,
  ].join('\n\n');
}
