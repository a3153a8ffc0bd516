import { Redis } from 'ioredis';
import { readUsedMemory, waitForStableMemory } from '../footprint/used-memory.ts';
import { startChild } from '../lib/child.ts';
import { openFreshRedis } from '../lib/redis.ts';
import { fixed, markdownTable, median } from '../lib/stats.ts';
import type { CampaignPhase, PhaseContext } from './campaign-phase.ts';
import type { StoreMeasure, StoreRequest, StoreVariant } from './store-process.ts';

interface StoreRun extends StoreMeasure {
  variant: StoreVariant;
  run: number;
  /** used_memory after the import, less before it, bytes. */
  usedBytes: number;
  keys: number;
}

/** Redis bytes per scheduled recipient the campaign may cost (issue 22). */
const goalBytes = 200;
/** Peak RSS of the importing process for a million rows (issue 22), MB. */
const goalMB = 150;

/**
 * Imports the file into a fresh `redis-server` per run, each variant in its own process,
 * alternating which goes first: the import's rows/s and peak RSS, and Redis's `used_memory`
 * growth per recipient waiting for its time. replyflow keeps every row (the excluded ones as
 * skipped, with their reason), its counters and its due index; the baseline a zset and a hash.
 */
export const storePhase: CampaignPhase = {
  name: 'store',
  description:
    'createCampaign into Redis (rows/s, peak RSS, used_memory per scheduled recipient), vs csv-parse + ZADD/HSET pipelines',
  async run(context) {
    const runs: StoreRun[] = [];
    for (let run = 1; run <= context.runs; run++) {
      const order = (
        (run % 2 === 1 ? ['replyflow', 'baseline'] : ['baseline', 'replyflow']) as StoreVariant[]
      ).filter((variant) => context.baselines || variant === 'replyflow');
      for (const variant of order) {
        runs.push({ ...(await storeOnce(variant, context)), variant, run });
        const last = runs.at(-1)!;
        console.log(
          `run ${run} ${variant}: ${last.rows} rows in ${fixed(last.seconds)} s, RSS ${fixed(last.startMiB)} MiB at start, ${fixed(last.memory.rssIdleMiB)} MiB before, peak ${fixed(last.memory.maxRssMiB)} MiB, ` +
            `${last.scheduled} scheduled, ${fixed(last.usedBytes / last.scheduled, 0)} B of used_memory each, ${last.keys} keys`,
        );
      }
    }
    return { report: report(runs, context), results: { runs } };
  },
};

async function storeOnce(variant: StoreVariant, context: PhaseContext) {
  const server = await openFreshRedis();
  const redis = new Redis(server.url);
  // BENCH_IMPORT_NODE_FLAGS: Node flags for the importing process (a smaller heap, say).
  const flags = (process.env.BENCH_IMPORT_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const child = await startChild(new URL('./store-process.ts', import.meta.url), [], {
    execArgv: ['--expose-gc', ...flags],
  });
  try {
    const before = await readUsedMemory(redis);
    const file = variant === 'replyflow' ? context.file : context.cleanFile;
    const request: StoreRequest = {
      variant,
      redisUrl: server.url,
      path: file.path,
      now: context.now,
      expectedRows: Math.round(file.bytes / 50),
    };
    const measure = await child.ask<StoreMeasure>('run', { ...request });
    const after = await waitForStableMemory(redis);
    return { ...measure, usedBytes: after.bytes - before, keys: await redis.dbsize() };
  } finally {
    await child.close();
    redis.disconnect();
    await server.stop();
  }
}

function report(runs: readonly StoreRun[], context: PhaseContext): string {
  const of = (variant: StoreVariant, pick: (run: StoreRun) => number) =>
    median(runs.filter((run) => run.variant === variant).map(pick));
  const rows: Array<[string, (run: StoreRun) => number, number]> = [
    ['rows per second (file rows)', (run) => context.file.rows / run.seconds, 0],
    ['seconds', (run) => run.seconds, 1],
    ['peak RSS of the importing process, MiB', (run) => run.memory.maxRssMiB, 1],
    ['RSS at its start (node, tsx), MiB', (run) => run.startMiB, 1],
    ['RSS before the import (modules loaded), MiB', (run) => run.memory.rssIdleMiB, 1],
    [
      'the import’s growth (peak − before), MiB',
      (run) => run.memory.maxRssMiB - run.memory.rssIdleMiB,
      1,
    ],
    ['recipients scheduled', (run) => run.scheduled, 0],
    ['used_memory growth, MiB', (run) => run.usedBytes / 2 ** 20, 1],
    ['used_memory per scheduled recipient, B', (run) => run.usedBytes / run.scheduled, 0],
    ['keys', (run) => run.keys, 0],
  ];
  const table = markdownTable(
    ['median', 'replyflow', 'baseline', 'replyflow ÷ baseline'],
    rows.map(([label, pick, decimals]) => [
      label,
      fixed(of('replyflow', pick), decimals),
      fixed(of('baseline', pick), decimals),
      fixed(of('replyflow', pick) / of('baseline', pick), 2),
    ]),
  );
  const perRecipient = of('replyflow', (run) => run.usedBytes / run.scheduled);
  const peakMB = of('replyflow', (run) => run.memory.maxRssMiB) * 1.048576;
  return [
    `medians of ${context.runs} runs, ${context.file.rows.toLocaleString('en-US')} rows, a fresh redis-server per run`,
    table,
    `Redis bytes per scheduled recipient, goal ≤ ${goalBytes} B: ${fixed(perRecipient, 0)} B, ${perRecipient <= goalBytes ? 'met' : 'NOT met'} ` +
      '(every row of the file is kept, the excluded ones as skipped with their reason, with the counters and the due index; the baseline keeps the scheduled ones only)',
    `peak RSS of the import in this process (node's default heap): ${fixed(peakMB)} MB. ` +
      `The goal (≤ ${goalMB} MB for 1,000,000 rows) is judged on the real command, whose import ` +
      'runs with a sized heap: the cli phase.',
  ].join('\n\n');
}
