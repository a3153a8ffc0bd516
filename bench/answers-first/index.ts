import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { createRedisStore } from '../../src/store/redis/create-redis-store.ts';
import { redisOptionsForStore } from '../../src/store/redis/redis-options-for-store.ts';
import type { Benchmark } from '../lib/benchmark.ts';
import { type BenchChild, startChild } from '../lib/child.ts';
import { machineInfo } from '../lib/machine.ts';
import { openBenchRedis, randomPrefix } from '../lib/redis.ts';
import { fixed, markdownTable, median, percentile } from '../lib/stats.ts';
import { campaignText } from './campaign-bot.ts';
import { startCampaignFeed } from './campaign-feed.ts';
import { answersTo, listSms, postReplies, timeReplies } from './reply-phase.ts';

/** `replyflow-before`: the same run from another checkout (`--before DIR`): the change's effect. */
type Variant = 'replyflow' | 'replyflow-before';

interface Settings {
  runs: number;
  /** The location's rate limit (REPLYFLOW_RATE_LIMIT), SMS/s. */
  rate: number;
  /** Campaign starts per second, as a multiple of the rate: above 1, a backlog builds. */
  feed: number;
  replies: number;
  /** The replies come at random moments over this long. */
  seconds: number;
  /** How long the campaign runs before the first reply may come. */
  backlogSeconds: number;
  beforeDir: string | undefined;
}

interface RunResult {
  variant: Variant;
  run: number;
  /** Reply → answer (ms), no other traffic. */
  alone: number[];
  /** Reply → answer (ms) while the campaign keeps the rate limit busy. */
  campaign: number[];
  /** Campaign SMS the service received per second while the replies came. */
  campaignPerSecond: number;
  /** Campaign messages started and not yet sent when each reply came. */
  backlogs: number[];
  starts: number;
}

const usage = `answers-first [--runs 1] [--rate 20] [--feed 1.25] [--replies 50] [--seconds 30]
       [--backlog-seconds 5] [--before DIR]`;

const benchmark: Benchmark = {
  name: 'answers-first',
  description:
    "reply → answer latency (webhook 200 → the service's POST /sms) at a fixed rate limit, with no other traffic and while a campaign keeps the limit busy with a backlog",
  run,
};
export default benchmark;

function parseSettings(args: readonly string[]): Settings {
  const { values } = parseArgs({
    args: [...args],
    options: {
      runs: { type: 'string', default: '1' },
      rate: { type: 'string', default: '20' },
      feed: { type: 'string', default: '1.25' },
      replies: { type: 'string', default: '50' },
      seconds: { type: 'string', default: '30' },
      'backlog-seconds': { type: 'string', default: '5' },
      before: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  const positive = (name: string, value: string) => {
    const number = Number(value);
    if (!(number > 0)) throw new Error(`--${name} must be a positive number\n${usage}`);
    return number;
  };
  return {
    runs: positive('runs', values.runs),
    rate: positive('rate', values.rate),
    feed: positive('feed', values.feed),
    replies: positive('replies', values.replies),
    seconds: positive('seconds', values.seconds),
    backlogSeconds: positive('backlog-seconds', values['backlog-seconds']),
    beforeDir: values.before && resolve(values.before),
  };
}

async function run(args: readonly string[]): Promise<void> {
  const settings = parseSettings(args);
  const machine = machineInfo();
  const started = Date.now();
  const redis = await openBenchRedis();
  const emulator = await startChild<{ url: string; baseUrl: string }>(
    new URL('../reply-loop/emulator-process.ts', import.meta.url),
    [],
  );
  console.log(
    `answers-first: ${machine.cpus} CPUs (${machine.cpuModel}), Node ${machine.node}, Redis ${redis.version} (${redis.origin}), load average ${machine.loadAverage.join(' ')}`,
  );
  const variants: Variant[] = settings.beforeDir
    ? ['replyflow', 'replyflow-before']
    : ['replyflow'];
  const results: RunResult[] = [];
  try {
    for (let r = 1; r <= settings.runs; r++) {
      for (const variant of r % 2 === 1 ? variants : [...variants].reverse()) {
        const result = await runOnce(variant, r, settings, redis.url, emulator);
        results.push(result);
        console.log(describe(result));
      }
    }
  } finally {
    await emulator.close();
    await redis.stop();
  }
  console.log(`\n${summarize(results, settings, variants)}\n`);
  mkdirSync(new URL('../results/', import.meta.url), { recursive: true });
  const file = new URL(
    `../results/answers-first-${new Date(started).toISOString().replace(/[:.]/g, '-')}.json`,
    import.meta.url,
  );
  const machineAtEnd = { ...machine, loadAverageAtEnd: os.loadavg(), redis: redis.version };
  writeFileSync(file, `${JSON.stringify({ machine: machineAtEnd, settings, results }, null, 2)}\n`);
  console.log(`raw results: ${file.pathname} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
}

async function runOnce(
  variant: Variant,
  run: number,
  settings: Settings,
  redisUrl: string,
  emulator: BenchChild<{ url: string; baseUrl: string }>,
): Promise<RunResult> {
  await emulator.ask('reset', { full: true });
  const prefix = randomPrefix('bench-answers');
  const sutFile =
    variant === 'replyflow-before'
      ? pathToFileURL(resolve(settings.beforeDir!, 'bench/reply-loop/sut-process.ts'))
      : new URL('../reply-loop/sut-process.ts', import.meta.url);
  // replyflow as `replyflow start` runs it, at the rate limit under test, with the campaign's bot.
  const sut = await startChild<{ webhookUrl: string }>(sutFile, ['replyflow'], {
    env: {
      BENCH_REDIS_URL: redisUrl,
      BENCH_PREFIX: prefix,
      BENCH_PROVIDER_URL: emulator.ready.baseUrl,
      BENCH_REPLYFLOW_ENV: JSON.stringify({ REPLYFLOW_RATE_LIMIT: String(settings.rate) }),
      BENCH_EXTRA_BOTS: JSON.stringify([new URL('./campaign-bot.ts', import.meta.url).href]),
    },
  });
  // The campaign's starts come through the store, as a campaign's do.
  const connection = new Redis(redisUrl, redisOptionsForStore());
  const store = createRedisStore({ redis: connection, prefix });
  const tag = randomBytes(4).toString('hex');
  const phones = (first: number) =>
    Array.from({ length: settings.replies }, (_, i) => `3361${first}${String(i).padStart(6, '0')}`);
  try {
    const { webhookUrl } = sut.ready;
    const alone = await timeReplies(
      webhookUrl,
      emulator.ready.url,
      phones(0),
      settings.seconds,
      `${tag}-a`,
    );
    const feed = startCampaignFeed(
      store,
      'bench-campaign',
      settings.rate * settings.feed,
      (n) => `3365${String(n).padStart(7, '0')}`,
    );
    let startedAt: number[] = [];
    let ackedAt: number[];
    try {
      await new Promise((done) => setTimeout(done, settings.backlogSeconds * 1000));
      ackedAt = await postReplies(webhookUrl, phones(1), settings.seconds, `${tag}-c`);
    } finally {
      // Stopped once the replies are in: an answer that waits behind the campaign's backlog
      // (as before answers first) then comes once that drains, rather than never.
      startedAt = await feed.stop();
    }
    const answeredAt = await answersTo(
      emulator.ready.url,
      phones(1),
      120_000 + (startedAt.length / settings.rate) * 1000,
    );
    const timed = { ackedAt, waits: answeredAt.map((at, i) => at - ackedAt[i]!) };
    const sentAt = (await listSms(emulator.ready.url))
      .filter((sms) => sms.body === campaignText)
      .map((sms) => Date.parse(sms.createdAt));
    const [from, to] = [Math.min(...timed.ackedAt), Math.max(...timed.ackedAt)];
    const within = sentAt.filter((at) => at >= from && at <= to).length;
    const countUpTo = (times: number[], at: number) => times.filter((t) => t <= at).length;
    return {
      variant,
      run,
      alone: alone.waits,
      campaign: timed.waits,
      campaignPerSecond: (within * 1000) / Math.max(1, to - from),
      backlogs: timed.ackedAt.map((at) => countUpTo(startedAt, at) - countUpTo(sentAt, at)),
      starts: startedAt.length,
    };
  } finally {
    await sut.close();
    await store.close();
    connection.disconnect();
  }
}

function describe(result: RunResult): string {
  const ms = (values: number[]) =>
    `p50/p99/max ${percentile(values, 50)}/${percentile(values, 99)}/${Math.max(...values)} ms`;
  return (
    `  run ${result.run} ${result.variant}: reply → answer alone ${ms(result.alone)}, ` +
    `during the campaign ${ms(result.campaign)} (campaign ${fixed(result.campaignPerSecond)} SMS/s, ` +
    `backlog at the replies p50 ${median(result.backlogs)}, ${result.starts} starts)`
  );
}

function summarize(results: RunResult[], settings: Settings, variants: Variant[]): string {
  const of = (variant: Variant, pick: (result: RunResult) => number) =>
    fixed(median(results.filter((r) => r.variant === variant).map(pick)), 0);
  const row = (label: string, pick: (result: RunResult) => number) => [
    label,
    ...variants.map((variant) => of(variant, pick)),
  ];
  return [
    `medians of ${settings.runs} run(s): rate limit ${settings.rate} SMS/s, campaign starts at ${settings.feed}× the rate ` +
      `from ${settings.backlogSeconds} s before the replies, ${settings.replies} replies at random moments over ${settings.seconds} s`,
    markdownTable(
      ['', ...variants],
      [
        row('reply → answer p50 ms, no campaign', (r) => percentile(r.alone, 50)),
        row('reply → answer p99 ms, no campaign', (r) => percentile(r.alone, 99)),
        row('reply → answer p50 ms, campaign draining', (r) => percentile(r.campaign, 50)),
        row('reply → answer p99 ms, campaign draining', (r) => percentile(r.campaign, 99)),
        row('reply → answer max ms, campaign draining', (r) => Math.max(...r.campaign)),
        row('campaign SMS/s during the replies', (r) => r.campaignPerSecond),
        row('campaign backlog at a reply (p50)', (r) => median(r.backlogs)),
      ],
    ),
  ].join('\n');
}
