import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import type { Benchmark } from '../lib/benchmark.ts';
import { type BenchChild, startChild } from '../lib/child.ts';
import { machineInfo } from '../lib/machine.ts';
import {
  type BenchRedis,
  countKeys,
  openBenchRedis,
  openFreshRedis,
  randomPrefix,
} from '../lib/redis.ts';
import { fixed, markdownTable, median } from '../lib/stats.ts';
import {
  type LoadResult,
  type NextBody,
  runAutocannon,
  runPaced,
  runPool,
  startRoundRobin,
} from './load.ts';
import {
  type CommandStats,
  formatRedisProfile,
  type RedisProfile,
  readCommandStats,
  startSlowlog,
  takeSlowlog,
} from './redis-profile.ts';
import { keyPair, phoneNumber, replyNotification } from './wiring.ts';

/**
 * `replyflow-web` is replyflow with the web role only (no worker, sender or scheduler): the ack
 * path alone, run through the latency phases only, to tell its cost from the processing's.
 */
/**
 * `replyflow-before` is replyflow from another checkout (`--before DIR`, with its own
 * node_modules), run in the same command: the cost of a change, measured on one machine state.
 */
/**
 * `peer` is the lean hand-written handler of issue 26 (`peer-app.ts`: Express, GET, actor, SET,
 * a plain undici request to `POST /sms`): the headline comparison. `baseline-client` is the
 * same handler sending through replyflow's messaging client (zod, limiter, retries), the
 * bench's baseline before issue 26 (`--only baseline` still selects it).
 */
type Variant = 'replyflow' | 'peer' | 'baseline-client' | 'replyflow-web' | 'replyflow-before';
const allVariants: readonly Variant[] = [
  'replyflow',
  'peer',
  'baseline-client',
  'replyflow-web',
  'replyflow-before',
];
/** The variant the headline ratio is taken against. */
const headlinePeer: Variant = 'peer';

interface Settings {
  runs: number;
  phones: number;
  turns: number;
  /**
   * Turns run between the cold and the warm measurement, not counted: a fresh process runs
   * its first thousands of turns in V8's interpreter and baseline tiers while the optimizing
   * compiler catches up (docs/benchmarks.md, "Cold and warm").
   */
  warmUpTurns: number;
  hot: number;
  rate: number;
  latencySeconds: number;
  /** autocannon connections of the throughput and start phases. */
  connections: number;
  /** autocannon connections of the fixed-rate phase (and of the hot conversation). */
  rateConnections: number;
  profile: boolean;
  /**
   * Also run one more phase of `turns` turns per run (not counted in the throughput) with
   * Redis's SLOWLOG logging every command, for the per-script split of Redis time per turn.
   */
  profileRedis: boolean;
  /** The variants to run, in this order on odd runs and reversed on even ones. */
  variants: Variant[];
  /** Extra environment for replyflow (`--replyflow-env REPLYFLOW_SEND_CONCURRENCY=1`). */
  replyflowEnv: Record<string, string>;
  /** The checkout `replyflow-before` runs from (`--before DIR`). */
  beforeDir: string | undefined;
  /**
   * `--statuses`: each server's webhook is registered at the emulator for `sms.status`, so each
   * answer's `sent` and `delivered` come back to it as the service posts them in a deployment
   * (the peer answers them 200 and does nothing else), and a phase ends once they all have.
   */
  statuses: boolean;
  /**
   * `--processes N`: N processes of the server on the one Redis, each notification to one of
   * them in turn (a round robin, as a load balancer spreads them; autocannon's phase goes to the
   * first; with `statuses`, the emulator's status notifications through a round robin in the
   * runner), their CPU summed: what the look from the value a process knows costs when another
   * process wrote it last.
   */
  processes: number;
}

/** The emulator's counters of `POST /v1/sms` arrivals. */
interface SmsStats {
  count: number;
  rejected: number;
  firstAt: number;
  lastAt: number;
}

/** CPU time used so far, µs, by each process of the loop. */
interface CpuSample {
  /** Not CPU: commands the app sent to Redis so far. */
  redisCommands: number;
  /** Not CPU: socket reads Redis made so far (INFO stats total_reads_processed). */
  redisReads: number;
  sut: number;
  redis: number;
  emulator: number;
  loadGenerator: number;
}
type CpuMeter = () => Promise<CpuSample>;

/** One phase that ends when the emulator has received `expected` SMS. */
interface TurnPhase {
  /** Notifications acknowledged with 2xx. */
  acked: number;
  failed: number;
  /** SMS received by the emulator. */
  sms: number;
  /** From the first notification sent to the last SMS received, ms. */
  elapsedMs: number;
  turnsPerSecond: number;
  /** Notifications acknowledged per second (the load generator's view). */
  acksPerSecond: number;
  /** From the last ack to the last SMS: the backlog left when the load stopped, ms. */
  drainMs: number;
  p50: number;
  p99: number;
  max: number;
  /** CPU time per turn, µs, by process: what the phase cost, whatever else ran on the machine. */
  cpuPerTurn: CpuSample & { total: number };
  /**
   * Redis's INFO commandstats over the phase (CONFIG RESETSTAT before it), for the phases that
   * take it: the warm one.
   */
  commandStats?: CommandStats;
  /**
   * Share of the machine's cores the hypervisor gave to other guests during the phase (steal
   * time in /proc/stat), %; undefined where it cannot be read. The main source of the spread
   * between runs on a shared VM.
   */
  stealPercent: number | undefined;
}

interface RunResult {
  variant: Variant;
  run: number;
  /** The turn phases; absent for `replyflow-web`, which answers no turn. */
  starts?: TurnPhase;
  /** The first `turns` turns after the starts: a fresh process, JIT still warming up. */
  cold?: TurnPhase;
  /** `warmUpTurns` more, not counted. */
  warmUp?: TurnPhase;
  /** `turns` turns once warm: the throughput a running server has. */
  spread?: TurnPhase;
  /** With --profile-redis: `turns` more turns with SLOWLOG at 0, and what it logged. */
  redisProfile?: RedisProfile;
  hot?: TurnPhase & { finalTurns: number | null };
  autocannon: TurnPhase;
  paced: TurnPhase;
  rssMiB: number;
  /** SMS the emulator accepted twice (same recipient and body) over the whole run. */
  duplicateSms: number;
}

const usage = `reply-loop [--runs 3] [--phones 500] [--turns 5000] [--warm-up-turns 5000] [--hot 500] [--rate 1000] [--before DIR]
           [--latency-seconds 4] [--connections 64] [--rate-connections 10] [--profile] [--profile-redis] [--statuses] [--processes 1]
           [--only replyflow,peer,baseline-client,replyflow-web,replyflow-before] [--replyflow-env NAME=value]...
  --turns N: turns measured cold (right after the starts) and again warm (after --warm-up-turns more)
  --profile-redis: one more phase per run with SLOWLOG at 0: Redis calls and µs per turn, per script
  --statuses: the service's status notifications too (each answer's sent and delivered posted to
              the server's webhook, at the service's own deadline and backoff), as in a deployment
  --processes N: N processes of each server on its Redis, the notifications spread over them in
              turn (with --statuses, the statuses too, through a round robin in the runner)
  peer: the lean hand-written handler (plain undici POST /sms), the headline ratio's reference;
  baseline-client: the same handler sending through replyflow's messaging client
  --before DIR: also run replyflow from DIR (another checkout with node_modules), ratio "replyflow / before"`;

const benchmark: Benchmark = {
  name: 'reply-loop',
  description:
    'conversation turns/s end to end (webhook → POST /sms), Redis CPU per turn (each server on its own redis-server) and webhook ack latency at a fixed rate: replyflow vs a lean Express + createActor + GET/SET + undici POST /sms peer',
  run,
};
export default benchmark;

function parseSettings(args: readonly string[]): Settings {
  const { values } = parseArgs({
    args: [...args],
    options: {
      runs: { type: 'string', default: '3' },
      phones: { type: 'string', default: '500' },
      turns: { type: 'string', default: '5000' },
      'warm-up-turns': { type: 'string', default: '5000' },
      hot: { type: 'string', default: '500' },
      rate: { type: 'string', default: '1000' },
      'latency-seconds': { type: 'string', default: '4' },
      connections: { type: 'string', default: '64' },
      'rate-connections': { type: 'string', default: '10' },
      profile: { type: 'boolean', default: false },
      'profile-redis': { type: 'boolean', default: false },
      statuses: { type: 'boolean', default: false },
      processes: { type: 'string', default: '1' },
      only: { type: 'string' },
      'replyflow-env': { type: 'string', multiple: true, default: [] },
      before: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  const positive = (name: string, value: string, least = 1) => {
    const number = Number(value);
    if (!Number.isInteger(number) || number < least) {
      const what = least === 0 ? 'a whole number' : 'a positive integer';
      throw new Error(`--${name} must be ${what}, got '${value}'\n${usage}`);
    }
    return number;
  };
  const only =
    values.only
      ?.split(',')
      .map((variant) => (variant === 'baseline' ? 'baseline-client' : variant)) ??
    allVariants.filter((variant) => variant !== 'replyflow-before' || values.before);
  if (only.includes('replyflow-before') && !values.before) {
    throw new Error(`the variant replyflow-before needs --before DIR (another checkout)\n${usage}`);
  }
  const unknown = only.filter((variant) => !allVariants.includes(variant as Variant));
  if (unknown.length > 0 || only.length === 0) {
    throw new Error(`--only takes variants among ${allVariants.join(', ')}; got '${values.only}'`);
  }
  const processes = positive('processes', values.processes);
  const replyflowEnv: Record<string, string> = {};
  for (const pair of values['replyflow-env']) {
    const match = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(pair);
    if (!match) throw new Error(`--replyflow-env takes NAME=value, got '${pair}'`);
    replyflowEnv[match[1]!] = match[2]!;
  }
  return {
    replyflowEnv,
    beforeDir: values.before && resolve(values.before),
    runs: positive('runs', values.runs),
    phones: positive('phones', values.phones),
    turns: positive('turns', values.turns),
    warmUpTurns: positive('warm-up-turns', values['warm-up-turns'], 0),
    hot: positive('hot', values.hot),
    rate: positive('rate', values.rate),
    latencySeconds: positive('latency-seconds', values['latency-seconds']),
    connections: positive('connections', values.connections),
    rateConnections: positive('rate-connections', values['rate-connections']),
    profile: values.profile,
    profileRedis: values['profile-redis'],
    statuses: values.statuses,
    processes,
    variants: only as Variant[],
  };
}

async function run(args: readonly string[]): Promise<void> {
  const settings = parseSettings(args);
  const machine = machineInfo();
  const started = Date.now();
  // Each run of each variant gets a redis-server of its own, so that its `INFO cpu` is that
  // server's cost alone (issue 26); this one only tells the version (and fails early).
  const redis = await openRunRedis();
  await redis.stop();
  // With --profile the emulator writes its own profile too (its CPU is part of every turn).
  const emulator = await startChild<{ baseUrl: string }>(
    new URL('./emulator-process.ts', import.meta.url),
    [],
    {
      ...(settings.profile && { execArgv: profileArgs() }),
      // Status notifications are answered within the service's own deadline, not 1 % of it:
      // a server's slower 2xx under load is not a failure to retry.
      ...(settings.statuses && { env: { BENCH_REAL_WEBHOOK_TIMING: '1' } }),
    },
  );
  console.log(
    `reply-loop: ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.memoryGiB} GiB, Node ${machine.node}, ` +
      `Redis ${redis.version} (${redis.origin}, one per run), load average ${machine.loadAverage.join(' ')}`,
  );
  const results: RunResult[] = [];
  try {
    const order = settings.variants;
    // The emulator and the load generator (this process) live through every run: the first
    // variant measured used to pay their warm-up (JIT), 1.5 times their CPU per turn and a
    // tenth fewer turns/s. One run of it first, not counted, warms them for every variant.
    const warmUp = await runOnce(order[0]!, 0, settings, emulator);
    console.log(`${describeRun(warmUp)} (warm-up, not counted)`);
    for (let r = 0; r < settings.runs; r++) {
      // Alternate which variant goes first, so a drift of the machine favours neither.
      const turn = r % 2 === 0 ? order : [...order].reverse();
      for (const variant of turn) {
        const result = await runOnce(variant, r + 1, settings, emulator);
        results.push(result);
        console.log(describeRun(result));
      }
    }
  } finally {
    await emulator.close();
  }
  const report = summarize(results, settings);
  console.log(`\n${report}\n`);
  const finished = Date.now();
  mkdirSync(new URL('../results/', import.meta.url), { recursive: true });
  const file = new URL(
    `../results/reply-loop-${new Date(started).toISOString().replace(/[:.]/g, '-')}.json`,
    import.meta.url,
  );
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        machine: { ...machine, loadAverageAtEnd: os.loadavg(), redis: redis.version },
        settings,
        durationS: (finished - started) / 1000,
        results,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`raw results: ${file.pathname} (${((finished - started) / 1000).toFixed(0)} s)`);
}

/**
 * A redis-server of the run's own (`openFreshRedis`), or, where none can be started, the
 * shared one of `openBenchRedis` (REDIS_URL): then Redis CPU per turn counts whatever else
 * that server does meanwhile.
 */
async function openRunRedis(): Promise<BenchRedis> {
  try {
    return await openFreshRedis();
  } catch {
    return openBenchRedis();
  }
}

/** Node's flags that write a CPU profile into bench/results/profiles/ when the process exits. */
function profileArgs(): string[] {
  const profileDir = new URL('../results/profiles/', import.meta.url).pathname;
  return ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
}

async function runOnce(
  variant: Variant,
  run: number,
  settings: Settings,
  emulator: BenchChild<{ baseUrl: string }>,
): Promise<RunResult> {
  const server = await openRunRedis();
  const redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
  try {
    // On a server of its own a run needs no random prefix: replyflow keeps the key names it has
    // by default (`rf:`), whose length every key a script touches carries, and the peer its own.
    const prefix =
      server.origin === 'fresh redis-server'
        ? variant.startsWith('replyflow')
          ? 'rf:'
          : `${variant}:`
        : randomPrefix(`bench-${variant}`);
    return await runOnceOn(server.url, redis, variant, run, settings, emulator, prefix);
  } finally {
    redis.disconnect();
    await server.stop();
  }
}

async function runOnceOn(
  redisUrl: string,
  redis: Redis,
  variant: Variant,
  run: number,
  settings: Settings,
  emulator: BenchChild<{ baseUrl: string }>,
  prefix: string,
): Promise<RunResult> {
  await emulator.ask('reset', { full: true });
  // replyflow-before: the same process file, from the other checkout (its code, its modules).
  const sutFile =
    variant === 'replyflow-before'
      ? pathToFileURL(resolve(settings.beforeDir!, 'bench/reply-loop/sut-process.ts'))
      : new URL('./sut-process.ts', import.meta.url);
  const suts = await Promise.all(
    Array.from({ length: settings.processes }, () =>
      startChild<{ webhookUrl: string }>(
        sutFile,
        // replyflow-before's checkout may predate the name baseline-client.
        [variant === 'replyflow-before' ? 'replyflow' : variant],
        {
          env: {
            BENCH_REDIS_URL: redisUrl,
            BENCH_PREFIX: prefix,
            BENCH_PROVIDER_URL: emulator.ready.baseUrl,
            BENCH_REPLYFLOW_ENV: JSON.stringify(settings.replyflowEnv),
          },
          execArgv: settings.profile ? profileArgs() : [],
        },
      ),
    ),
  );
  const sut = suts[0]!;
  let roundRobin: Awaited<ReturnType<typeof startRoundRobin>> | undefined;
  try {
    const url = sut.ready.webhookUrl;
    // Every process in turn (a round robin); the first alone with --processes 1.
    const urls = suts.map((child) => child.ready.webhookUrl);
    // Several processes: one address for the emulator's status notifications, each to the
    // next process.
    if (urls.length > 1 && settings.statuses) roundRobin = await startRoundRobin(urls);
    if (settings.statuses) {
      await registerStatusWebhook(emulator.ready.baseUrl, roundRobin?.url ?? url);
    }
    const tag = randomBytes(4).toString('hex');
    let seq = 0;
    const spreadOver =
      (phoneOf: (n: number) => string): NextBody =>
      () => {
        const n = seq++;
        return replyNotification(`${tag}-${n}`, phoneOf(n), `ECHO ${n}`);
      };
    let spreadIndex = 0;
    const nextSpread = spreadOver(() => phoneNumber(spreadIndex++ % settings.phones));
    const hotPhone = phoneNumber(999_999);
    const cpu: CpuMeter = async () => {
      const [owns, emulated, info, loadGenerator] = await Promise.all([
        Promise.all(
          suts.map((child) => child.ask<{ micros: number; redisCommands: number }>('cpu')),
        ),
        emulator.ask<{ micros: number }>('cpu'),
        redis.info('cpu'),
        Promise.resolve(process.cpuUsage()),
      ]);
      const stats = await redis.info('stats');
      const seconds = (field: string) =>
        Number(new RegExp(`${field}:([\\d.]+)`).exec(info)?.[1] ?? 0);
      return {
        redisCommands: owns.reduce((sum, own) => sum + own.redisCommands, 0),
        redisReads: Number(/total_reads_processed:(\d+)/.exec(stats)?.[1] ?? 0),
        sut: owns.reduce((sum, own) => sum + own.micros, 0),
        emulator: emulated.micros,
        redis: (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1e6,
        loadGenerator: loadGenerator.user + loadGenerator.system,
      };
    };
    // The web role alone answers no turn: its phases end with the last ack.
    const answers = variant !== 'replyflow-web';
    const measure = (load: () => Promise<LoadResult>, statsOf?: Redis) =>
      measureTurns(emulator, cpu, load, answers, settings.statuses, statsOf);

    // 1. Each phone starts its conversation (and every process warms up: JIT, connections).
    const starts = await measure(() =>
      runPool({
        url: urls,
        connections: settings.connections,
        amount: settings.phones,
        next: nextSpread,
      }),
    );
    let cold: TurnPhase | undefined;
    let warmUp: TurnPhase | undefined;
    let spread: TurnPhase | undefined;
    let redisProfile: RedisProfile | undefined;
    let hot: RunResult['hot'];
    if (answers) {
      // 2. Throughput: turns of the started conversations, as fast as they are taken. Cold
      // first, right after the starts; then, after a warm-up, warm: a server runs warm.
      // An undici Pool drives them (issue 26: it costs the runner less than autocannon).
      const turnsOf = (amount: number) => () =>
        runPool({ url: urls, connections: settings.connections, amount, next: nextSpread });
      cold = await measure(turnsOf(settings.turns));
      if (settings.warmUpTurns > 0) warmUp = await measure(turnsOf(settings.warmUpTurns));
      // The warm phase also takes INFO commandstats (CONFIG RESETSTAT before it).
      spread = await measure(turnsOf(settings.turns), redis);
      if (settings.profileRedis) {
        // Not counted: logging every command costs Redis CPU.
        await startSlowlog(redis);
        const phase = await measure(turnsOf(settings.turns), redis);
        redisProfile = { turns: phase.sms, ...(await takeSlowlog(redis)) };
      }
      // 3. One hot conversation: every notification for the same phone.
      const hotPhase = await measure(() =>
        runPool({
          url: urls,
          connections: settings.rateConnections,
          amount: settings.hot,
          next: spreadOver(() => hotPhone),
        }),
      );
      const { turns } = await sut.ask<{ turns: number | null }>('turns', { phone: hotPhone });
      hot = { ...hotPhase, finalTurns: turns };
    }
    // 4. Ack latency at a fixed rate, autocannon's way (overallRate: bursts each second).
    const fixedRate = await measure(() =>
      runAutocannon({
        url,
        connections: settings.rateConnections,
        overallRate: settings.rate,
        durationS: settings.latencySeconds,
        next: nextSpread,
      }),
    );
    // 5. Ack latency at the same rate, evenly paced and open-loop.
    const paced = await measure(() =>
      runPaced({
        url: urls,
        rate: settings.rate,
        durationMs: settings.latencySeconds * 1000,
        next: nextSpread,
      }),
    );
    const memories = await Promise.all(suts.map((child) => child.ask<{ rss: number }>('memory')));
    const rss = memories.reduce((sum, memory) => sum + memory.rss, 0);
    const { duplicates } = await emulator.ask<{ duplicates: number }>('duplicates');
    return {
      variant,
      run,
      ...(answers ? { starts, cold, warmUp, spread, hot } : {}),
      ...(redisProfile ? { redisProfile } : {}),
      autocannon: fixedRate,
      paced,
      rssMiB: Math.round(rss / 2 ** 20),
      duplicateSms: duplicates,
    };
  } finally {
    // The children delete their keys as they stop; check that nothing was left behind.
    await roundRobin?.close();
    await Promise.all(suts.map((child) => child.close()));
    const left = await countKeys(redis, prefix);
    if (left > 0) console.warn(`warning: ${left} keys were left under ${prefix}`);
  }
}

/** The machine's steal time so far, in USER_HZ ticks (/proc/stat), or undefined off Linux. */
function stealTicks(): number | undefined {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/);
    const steal = Number(cpu[8]);
    return Number.isFinite(steal) ? steal : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs a load and waits until the emulator has received one SMS per acknowledged
 * notification, then times the phase from the first notification to the last SMS, and takes
 * the CPU every process used meanwhile. Fails when the SMS stop coming for 15 s.
 */
async function measureTurns(
  emulator: BenchChild<unknown>,
  cpu: CpuMeter,
  load: () => Promise<LoadResult>,
  answers: boolean,
  /** Waits for the emulator's status notifications of the phase to be delivered (--statuses). */
  statuses: boolean,
  /** Takes this Redis's INFO commandstats over the phase. */
  statsOf?: Redis,
): Promise<TurnPhase> {
  await emulator.ask('reset');
  if (statsOf) await statsOf.config('RESETSTAT');
  const cpuBefore = await cpu();
  const stealBefore = stealTicks();
  const startedAt = Date.now();
  const result = await load();
  const ackedAt = startedAt + result.elapsedMs;
  const want = answers ? result.ok : 0;
  let stats = await emulator.ask<SmsStats>('stats');
  let progressAt = Date.now();
  let seen = stats.count;
  while (stats.count < want) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    stats = await emulator.ask<SmsStats>('stats');
    if (stats.count > seen) {
      seen = stats.count;
      progressAt = Date.now();
    } else if (Date.now() - progressAt > 15_000) {
      throw new Error(
        `only ${stats.count} of ${want} SMS reached the emulator (no progress for 15 s)`,
      );
    }
  }
  // Then until nothing more comes for 150 ms: a load that stops on time (autocannon's
  // `duration`) leaves a few requests in flight whose answers it does not count, and their
  // SMS must not land in the next phase.
  for (let quietSince = Date.now(); answers && Date.now() - quietSince < 150; ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = await emulator.ask<SmsStats>('stats');
    if (now.count !== stats.count) quietSince = Date.now();
    stats = now;
  }
  // The statuses of the phase's answers are part of its turns: their CPU is counted here.
  for (const until = Date.now() + 30_000; statuses && Date.now() < until; ) {
    if ((await emulator.ask<{ pending: number }>('pending')).pending === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const cpuAfter = await cpu();
  const commandStats = statsOf && (await readCommandStats(statsOf));
  const stealAfter = stealTicks();
  const wallMs = Date.now() - startedAt;
  const stealPercent =
    stealBefore === undefined || stealAfter === undefined
      ? undefined
      : // Ticks of 10 ms (USER_HZ 100) over the wall time of every core.
        ((stealAfter - stealBefore) * 10 * 100) / (wallMs * os.cpus().length);
  const elapsedMs = Math.max(1, answers ? stats.lastAt - startedAt : result.elapsedMs);
  // Per turn; per notification when no turn is answered (the web role alone).
  const turns = answers ? stats.count : result.ok;
  const perTurn = (field: keyof CpuSample) =>
    (cpuAfter[field] - cpuBefore[field]) / Math.max(1, turns);
  const cpuPerTurn = {
    redisCommands: perTurn('redisCommands'),
    redisReads: perTurn('redisReads'),
    sut: perTurn('sut'),
    redis: perTurn('redis'),
    emulator: perTurn('emulator'),
    loadGenerator: perTurn('loadGenerator'),
    total: 0,
  };
  cpuPerTurn.total =
    cpuPerTurn.sut + cpuPerTurn.redis + cpuPerTurn.emulator + cpuPerTurn.loadGenerator;
  return {
    cpuPerTurn,
    ...(commandStats ? { commandStats } : {}),
    stealPercent,
    acked: result.ok,
    failed: result.failed,
    sms: stats.count,
    elapsedMs,
    turnsPerSecond: answers ? (stats.count * 1000) / elapsedMs : Number.NaN,
    acksPerSecond: (result.ok * 1000) / result.elapsedMs,
    drainMs: answers ? Math.max(0, stats.lastAt - ackedAt) : Number.NaN,
    p50: result.p50,
    p99: result.p99,
    max: result.max,
  };
}

function describeRun(result: RunResult): string {
  const { starts, cold, warmUp, spread, hot, autocannon, paced } = result;
  const phases = [starts, cold, warmUp, spread, hot, autocannon, paced].filter(
    (phase) => phase !== undefined,
  );
  const failed = phases.reduce((sum, phase) => sum + phase.failed, 0);
  const cost = spread ?? autocannon;
  const turns = spread
    ? `turns/s ${fixed(spread.turnsPerSecond, 0)} (acks/s ${fixed(spread.acksPerSecond, 0)}; ` +
      `cold ${fixed(cold?.turnsPerSecond ?? Number.NaN, 0)}, ${fixed(cold?.cpuPerTurn.sut ?? Number.NaN, 0)} µs app/turn), `
    : '';
  const hotText = hot
    ? `hot ${fixed(hot.turnsPerSecond, 0)}/s (${hot.finalTurns ?? '?'} of ${hot.sms} turns kept), `
    : '';
  return (
    `  run ${result.run} ${result.variant.padEnd(9)} ${turns}${hotText}` +
    `ack p50/p99 autocannon ${fixed(autocannon.p50)}/${fixed(autocannon.p99)} ms, ` +
    `paced ${fixed(paced.p50)}/${fixed(paced.p99)} ms, drain ${fixed(autocannon.drainMs, 0)}/${fixed(paced.drainMs, 0)} ms, ` +
    `Redis commands/${spread ? 'turn' : 'ack'} ${fixed(cost.cpuPerTurn.redisCommands, 2)} ` +
    `(${fixed(cost.cpuPerTurn.redisReads, 2)} socket reads), ` +
    `CPU µs/${spread ? 'turn' : 'ack'} ${fixed(cost.cpuPerTurn.sut, 0)} app + ${fixed(cost.cpuPerTurn.redis, 0)} Redis + ` +
    `${fixed(cost.cpuPerTurn.emulator, 0)} emulator + ${fixed(cost.cpuPerTurn.loadGenerator, 0)} load, ` +
    `failed ${failed}, duplicate SMS ${result.duplicateSms}, rss ${result.rssMiB} MiB` +
    (cost.stealPercent === undefined ? '' : `, steal ${fixed(cost.stealPercent, 1)} %`) +
    (paced.stealPercent === undefined ? '' : ` (paced ${fixed(paced.stealPercent, 1)} %)`)
  );
}

/** µs per turn of one command over a phase, from its INFO commandstats. */
function perTurnOf(phase: TurnPhase, command: string): number {
  return (phase.commandStats?.[command]?.usec ?? 0) / Math.max(1, phase.sms);
}

function summarize(results: readonly RunResult[], settings: Settings): string {
  const of = (variant: Variant, pick: (result: RunResult) => number | undefined) =>
    median(
      results
        .filter((result) => result.variant === variant)
        .map((result) => pick(result) ?? Number.NaN),
    );
  const present = allVariants.filter((variant) => results.some((r) => r.variant === variant));
  const columns: Array<[string, (result: RunResult) => number | undefined, number]> = [
    [`turns/s, ${settings.phones} phones`, (r) => r.spread?.turnsPerSecond, 0],
    [
      `turns/s cold: the first ${settings.turns} of a fresh process`,
      (r) => r.cold?.turnsPerSecond,
      0,
    ],
    ['acks/s during it', (r) => r.spread?.acksPerSecond, 0],
    ['Redis commands per turn', (r) => r.spread?.cpuPerTurn.redisCommands, 2],
    ['Redis socket reads per turn', (r) => r.spread?.cpuPerTurn.redisReads, 2],
    ['CPU µs per turn: app', (r) => r.spread?.cpuPerTurn.sut, 0],
    ['CPU µs per turn: app, cold', (r) => r.cold?.cpuPerTurn.sut, 0],
    [
      'CPU µs per turn: Redis (its own redis-server, INFO cpu)',
      (r) => r.spread?.cpuPerTurn.redis,
      0,
    ],
    [
      'turns/s per Redis core (1,000,000 / Redis µs per turn)',
      (r) => r.spread && 1e6 / r.spread.cpuPerTurn.redis,
      0,
    ],
    [
      'Redis command time µs per turn (commandstats, FCALL + EVALSHA)',
      (r) =>
        r.spread?.commandStats && perTurnOf(r.spread, 'fcall') + perTurnOf(r.spread, 'evalsha'),
      1,
    ],
    [
      'CPU µs per turn: emulator + load generator',
      (r) => r.spread && r.spread.cpuPerTurn.emulator + r.spread.cpuPerTurn.loadGenerator,
      0,
    ],
    ['turns/s, 1 hot phone', (r) => r.hot?.turnsPerSecond, 0],
    ['hot turns kept', (r) => r.hot?.finalTurns ?? undefined, 0],
    [`ack p50 ms, autocannon ${settings.rate}/s`, (r) => r.autocannon.p50, 1],
    [`ack p99 ms, autocannon ${settings.rate}/s`, (r) => r.autocannon.p99, 1],
    [`ack p50 ms, paced ${settings.rate}/s`, (r) => r.paced.p50, 1],
    [`ack p99 ms, paced ${settings.rate}/s`, (r) => r.paced.p99, 1],
    ['drain after paced load, ms', (r) => r.paced.drainMs, 0],
    ['CPU steal during the turns, % of the cores', (r) => r.spread?.stealPercent, 1],
    ['CPU steal during the paced load, %', (r) => r.paced.stealPercent, 1],
  ];
  // The ratios compare replyflow with the lean peer (the headline), with the baseline that
  // sends through replyflow's client, and with replyflow before, when they ran.
  const ratioTo = (other: Variant, pick: (result: RunResult) => number | undefined) =>
    present.includes('replyflow') && present.includes(other)
      ? of('replyflow', pick) / of(other, pick)
      : Number.NaN;
  const others = ([headlinePeer, 'baseline-client', 'replyflow-before'] as const).filter((other) =>
    present.includes(other),
  );
  const rows = columns.map(([label, pick, decimals]) => {
    const values = present.map((variant) => of(variant, pick));
    const ratios = others.map((other) => fixed(ratioTo(other, pick), 2));
    return [label, ...values.map((value) => fixed(value, decimals)), ...ratios];
  });
  // Per round: replyflow against each other variant measured next to it in time (the machine's
  // speed drifts between rounds far more than within one), then the median and the range.
  const paired = others.map((other) => {
    const rounds = [...new Set(results.map((r) => r.run))];
    const pairs = rounds.flatMap((round) => {
      const mine = results.find((r) => r.run === round && r.variant === 'replyflow');
      const theirs = results.find((r) => r.run === round && r.variant === other);
      return mine?.spread && theirs?.spread ? [[mine.spread, theirs.spread] as const] : [];
    });
    if (pairs.length === 0) return undefined;
    const describe = (label: string, pick: (phase: TurnPhase) => number, decimals: number) => {
      const ratios = pairs.map(([mine, theirs]) => pick(mine) / pick(theirs));
      return `${label} ${fixed(median(ratios), decimals)} (${fixed(Math.min(...ratios), decimals)}–${fixed(Math.max(...ratios), decimals)})`;
    };
    return (
      `replyflow / ${other}, each round apart (${pairs.length}), median (range): ` +
      [
        describe('turns/s', (phase) => phase.turnsPerSecond, 2),
        describe('Redis CPU µs per turn', (phase) => phase.cpuPerTurn.redis, 2),
        describe('app CPU µs per turn', (phase) => phase.cpuPerTurn.sut, 2),
      ].join(', ')
    );
  });
  // Where each variant's Redis time goes, over all its runs.
  const profiles = present
    .filter((variant) => variant !== 'replyflow-web')
    .map((variant) => {
      const runs = results.filter((r) => r.variant === variant);
      const warm = runs.flatMap((r) =>
        r.spread?.commandStats ? [{ stats: r.spread.commandStats, turns: r.spread.sms }] : [],
      );
      const slowlogs = runs.flatMap((r) => (r.redisProfile ? [r.redisProfile] : []));
      return formatRedisProfile(
        variant,
        warm,
        slowlogs,
        of(variant, (r) => r.spread?.cpuPerTurn.redis),
      );
    });
  const env = Object.entries(settings.replyflowEnv).map(([name, value]) => `${name}=${value}`);
  return [
    `medians of ${settings.runs} runs${env.length > 0 ? ` (replyflow with ${env.join(' ')})` : ''} ` +
      (settings.statuses
        ? "(with the service's status notifications: each answer's sent and delivered posted to the server) "
        : '') +
      (settings.processes > 1
        ? `(${settings.processes} processes of each server on its Redis, the notifications to each in turn; CPU "app" is theirs summed) `
        : '') +
      `(turns/s: ${settings.turns} turns each, cold right after the ${settings.phones} starts, then warm after ${settings.warmUpTurns} more) ` +
      `(hot: ${settings.hot} notifications to one phone, ${settings.rateConnections} connections; ` +
      `fixed rate: ${settings.latencySeconds} s at ${settings.rate}/s)`,
    markdownTable(['', ...present, ...others.map((other) => `replyflow / ${other}`)], rows),
    '',
    ...paired.flatMap((line) => (line ? [line, ''] : [])),
    'Redis time per turn by command (and, with --profile-redis, by script):',
    ...profiles.flatMap((profile) => ['', profile]),
  ].join('\n');
}

/**
 * Registers `webhookUrl` at the emulator for `sms.status`, as `replyflow start` registers its
 * own (spec §4, POST /webhooks): the emulator then posts each SMS's status changes to it.
 */
async function registerStatusWebhook(serviceUrl: string, webhookUrl: string): Promise<void> {
  const response = await fetch(`${serviceUrl}/webhooks`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      'x-api-key-id': keyPair.id,
      'x-api-key-secret': keyPair.secret,
    },
    body: JSON.stringify({ url: webhookUrl, events: ['sms.status'] }),
  });
  if (!response.ok) {
    throw new Error(`POST /webhooks at the emulator: ${response.status} ${await response.text()}`);
  }
}
