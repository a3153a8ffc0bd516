import { Redis } from 'ioredis';
import { loadConfig } from '../../src/app/config.ts';
import { createRedisStore } from '../../src/store/redis/create-redis-store.ts';
import { storeKeys } from '../../src/store/redis/keys.ts';
import type { QueueName } from '../../src/store/store.ts';
import { type CommandRate, countCommands } from '../../test/support/count-commands.ts';
import { freePort } from '../../test/support/free-port.ts';
import { type BenchChild, startChild } from '../lib/child.ts';
import { openFreshRedis } from '../lib/redis.ts';
import { type KeyCensus, takeKeyCensus } from './key-census.ts';
import { type LoadedConversations, loadConversations } from './load-conversations.ts';
import { type ConversationTally, tallyConversations } from './tally-conversations.ts';
import { waitForStableMemory } from './used-memory.ts';

export interface FootprintSettings {
  /** Idle conversations (echo bot, active, waiting for a reply). */
  conversations: number;
  /** Ended conversations (the once bot: one answer, then its final state). */
  ended: number;
  /** Conversations loaded through the naive baseline (on its own fresh Redis). */
  baseline: number;
  /** Notifications in flight at once. */
  concurrency: number;
  /** Most notifications acknowledged ahead of the SMS the emulator received. */
  backlog: number;
  /** How long the idle SUT's Redis commands are counted, s. */
  idleSeconds: number;
  /**
   * Keys that expire within this many seconds after a load (a lock's lease, the loop guard's
   * window) are waited out before measuring: an idle conversation does not keep them.
   */
  expiryWaitSeconds: number;
  /** Keys per type measured with MEMORY USAGE. */
  samplePerType: number;
  /** Progress lines. */
  log: (line: string) => void;
}

/** One measure of `used_memory` after a load, with the key census taken with it. */
export interface MemoryReading {
  /** `used_memory`, bytes. */
  usedMemory: number;
  /** False when used_memory still moved when the bench gave up waiting. */
  stable: boolean;
  census: KeyCensus;
  /** Key types whose every key expired within `expiryWaitSeconds` and were waited out. */
  waitedOut: Array<{ type: string; count: number }>;
  waitedMs: number;
}

export interface FootprintReport {
  settings: Omit<FootprintSettings, 'log'>;
  redisVersion: string;
  prefix: string;
  partitions: number;
  replyflow: {
    /** Before any conversation: the empty server with the SUT connected. */
    before: { usedMemory: number; census: KeyCensus };
    /** The first idle conversations (`firstTranche`), loaded and measured before the others. */
    firstLoad: LoadedConversations;
    first: MemoryReading;
    /** Both tranches of idle conversations together. */
    idleLoad: LoadedConversations;
    idle: MemoryReading;
    /**
     * Bytes per idle conversation, from the first tranche's reading to the last (the slope):
     * what the fixed costs that come with the first traffic (buffers, each partition's first
     * keys) would otherwise add, divided by the count, is left out.
     */
    idleBytesPerConversation: number;
    /** The same from the empty server, as measured before the slope (reads higher for a small count). */
    idleBytesFromEmpty: number;
    idleCommands: CommandRate;
    endedLoad: LoadedConversations;
    ended: MemoryReading;
    endedBytesPerConversation: number;
    /** Records per `<bot> <status>` at the end. */
    conversations: ConversationTally;
  };
  baseline: {
    before: number;
    /** After its first tranche, as replyflow's. */
    first: number;
    load: LoadedConversations;
    after: MemoryReading;
    /** The slope, from `first` to `after`. */
    bytesPerConversation: number;
  };
  durationMs: number;
}

const queues = ['inbox', 'outbox'] as const satisfies readonly QueueName[];

/**
 * The Redis footprint of replyflow's conversations (issue 14): on a fresh `redis-server` of
 * its own, replyflow runs in its own process as `replyflow start` runs it (every role, the
 * Redis store, its webhook registered at the emulator so the `sms.status` notifications come
 * back as in production). It loads `conversations` idle ones (ECHO: one answer, its statuses,
 * then nothing) and measures, then `ended` ones (ONCE: one answer and the end) and measures
 * again; counts the idle process's Redis commands; then loads `baseline` conversations
 * through the naive handler on another fresh server. Stops everything it started, also on
 * error.
 */
export async function measureFootprint(settings: FootprintSettings): Promise<FootprintReport> {
  const started = Date.now();
  const { log } = settings;
  // The store's defaults as `replyflow start` applies them: the key prefix and the partitions
  // shape every key name, so the names measured are the production ones.
  const defaults = await loadConfig({});
  const prefix = defaults.redisPrefix;
  const partitions = defaults.redisPartitions ?? 16;
  const keys = storeKeys(prefix, partitions);
  const readyKeys = Array.from({ length: partitions }, (_, p) =>
    queues.map((queue) => keys.partition(p).ready(queue)),
  ).flat();

  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => {});
  };
  try {
    // 1. replyflow.
    const redisServer = await openFreshRedis();
    stops.push(() => redisServer.stop());
    const redis = new Redis(redisServer.url, { maxRetriesPerRequest: 1 });
    stops.push(async () => redis.disconnect());
    const emulator = await startEmulator(stops);
    const port = await freePort();
    const sut = await startChild<{ webhookUrl: string }>(
      new URL('../reply-loop/sut-process.ts', import.meta.url),
      ['replyflow'],
      {
        env: {
          BENCH_REDIS_URL: redisServer.url,
          BENCH_PREFIX: prefix,
          BENCH_PROVIDER_URL: emulator.ready.baseUrl,
          // A known port, so that the public URL is known at start and the webhook is
          // registered at the emulator as `replyflow start` registers it.
          BENCH_REPLYFLOW_ENV: JSON.stringify({
            PORT: String(port),
            REPLYFLOW_PUBLIC_URL: `http://127.0.0.1:${port}`,
          }),
          BENCH_EXTRA_BOTS: JSON.stringify([new URL('./once-bot.ts', import.meta.url).href]),
          BENCH_KEEP_KEYS: '1',
        },
      },
    );
    stops.push(() => sut.close());
    log(
      `replyflow started (all roles, ${partitions} partitions, prefix '${prefix}') on Redis ${redisServer.version} (${redisServer.origin})`,
    );
    const before = {
      usedMemory: (await waitForStableMemory(redis)).bytes,
      census: await takeKeyCensus(redis, prefix, settings),
    };
    log(
      `before: used_memory ${mib(before.usedMemory)}, ${before.census.keys} keys, ${await functionsLoaded(redis)}; loading ${settings.conversations.toLocaleString('en')} idle conversations`,
    );
    const load = loaderOf({
      webhookUrl: sut.ready.webhookUrl,
      emulator,
      redis,
      readyKeys,
      settings,
    });
    const {
      firstLoad,
      first,
      restLoad,
      all: idleLoad,
    } = await loadInTranches(
      load,
      'idle',
      'ECHO',
      settings.conversations,
      () => readMemory(redis, prefix, settings),
      log,
    );
    log(
      `idle conversations settled in ${seconds(idleLoad.settledMs)} (load ${seconds(idleLoad.loadMs)}); ` +
        `counting the idle SUT's Redis commands for ${settings.idleSeconds} s`,
    );
    const idleCommands = await countCommands(redis, settings.idleSeconds * 1000);
    const idle = await readMemory(redis, prefix, settings);
    const idleBytesPerConversation = (idle.usedMemory - first.usedMemory) / restLoad.conversations;
    const idleBytesFromEmpty = (idle.usedMemory - before.usedMemory) / idleLoad.conversations;
    log(
      `idle: used_memory ${mib(idle.usedMemory)}, ${Math.round(idleBytesPerConversation)} B per conversation ` +
        `(${Math.round(idleBytesFromEmpty)} B from the empty server); ` +
        `loading ${settings.ended.toLocaleString('en')} ended conversations`,
    );
    const endedLoad = await load('ended', 'ONCE', settings.ended, settings.conversations);
    checkLoad('ended', endedLoad);
    const ended = await readMemory(redis, prefix, settings);
    const endedBytesPerConversation =
      endedLoad.conversations > 0
        ? (ended.usedMemory - idle.usedMemory) / endedLoad.conversations
        : Number.NaN;
    const store = createRedisStore({ redis, prefix, partitions, onError: () => {} });
    const conversations = await tallyConversations(store);
    await store.close();
    log(
      `ended: used_memory ${mib(ended.usedMemory)}, ${Math.round(endedBytesPerConversation)} B per ended conversation; ` +
        `records ${JSON.stringify(conversations)}`,
    );
    await stopAll();

    // 2. The naive baseline, on a fresh server and a fresh emulator of its own.
    const baselineServer = await openFreshRedis();
    stops.push(() => baselineServer.stop());
    const baselineRedis = new Redis(baselineServer.url, { maxRetriesPerRequest: 1 });
    stops.push(async () => baselineRedis.disconnect());
    const baselineEmulator = await startEmulator(stops);
    const baselineSut = await startChild<{ webhookUrl: string }>(
      new URL('../reply-loop/sut-process.ts', import.meta.url),
      ['baseline'],
      {
        env: {
          BENCH_REDIS_URL: baselineServer.url,
          BENCH_PREFIX: prefix,
          BENCH_PROVIDER_URL: baselineEmulator.ready.baseUrl,
          BENCH_KEEP_KEYS: '1',
        },
      },
    );
    stops.push(() => baselineSut.close());
    const baselineBefore = (await waitForStableMemory(baselineRedis)).bytes;
    log(`baseline: loading ${settings.baseline.toLocaleString('en')} conversations`);
    const loadBaseline = loaderOf({
      webhookUrl: baselineSut.ready.webhookUrl,
      emulator: baselineEmulator,
      redis: baselineRedis,
      readyKeys: [],
      settings,
    });
    // Measured as replyflow's: the slope after a first tranche.
    const baselineTranches = await loadInTranches(
      loadBaseline,
      'baseline',
      'ECHO',
      settings.baseline,
      () => readMemory(baselineRedis, prefix, settings),
      log,
    );
    const baselineFirst = baselineTranches.first.usedMemory;
    const baselineLoad = baselineTranches.all;
    const baselineAfter = await readMemory(baselineRedis, prefix, settings);
    const baselineBytes =
      (baselineAfter.usedMemory - baselineFirst) / baselineTranches.restLoad.conversations;
    log(`baseline: ${Math.round(baselineBytes)} B per conversation`);
    await stopAll();

    const { log: _log, ...kept } = settings;
    return {
      settings: kept,
      redisVersion: redisServer.version,
      prefix,
      partitions,
      replyflow: {
        before,
        firstLoad,
        first,
        idleLoad,
        idle,
        idleBytesPerConversation,
        idleBytesFromEmpty,
        idleCommands,
        endedLoad,
        ended,
        endedBytesPerConversation,
        conversations,
      },
      baseline: {
        before: baselineBefore,
        first: baselineFirst,
        load: baselineLoad,
        after: baselineAfter,
        bytesPerConversation: baselineBytes,
      },
      durationMs: Date.now() - started,
    };
  } finally {
    await stopAll();
  }
}

/**
 * The emulator in its own process (bench/reply-loop's), stopped with the others: the SMS
 * lifecycle 100× faster, the webhook's deadline and retries at the service's real pace.
 */
async function startEmulator(
  stops: Array<() => Promise<void>>,
): Promise<BenchChild<{ baseUrl: string }>> {
  const emulator = await startChild<{ baseUrl: string }>(
    new URL('../reply-loop/emulator-process.ts', import.meta.url),
    [],
    { env: { BENCH_REAL_WEBHOOK_TIMING: '1' } },
  );
  stops.push(() => emulator.close());
  return emulator;
}

/**
 * How many conversations of `count` are loaded and measured first: a twentieth, at least one
 * and at most 2,000 (none of a single conversation: its slope is then from the empty server).
 */
export function firstTranche(count: number): number {
  return count < 2 ? 0 : Math.max(1, Math.min(2_000, Math.floor(count / 20)));
}

/** A load of no conversation. */
const noLoad: LoadedConversations = {
  conversations: 0,
  failed: 0,
  retried: 0,
  sms: 0,
  statusNotifications: 0,
  failedStatusAttempts: 0,
  loadMs: 0,
  settledMs: 0,
};

type Load = (
  label: string,
  keyword: string,
  count: number,
  firstPhone: number,
) => Promise<LoadedConversations>;

/** `loadConversations` into one system under test, with the run's settings. */
function loaderOf(target: {
  webhookUrl: string;
  emulator: BenchChild<unknown>;
  redis: Redis;
  readyKeys: string[];
  settings: FootprintSettings;
}): Load {
  const { settings, ...into } = target;
  return (label, keyword, count, firstPhone) =>
    loadConversations({
      ...into,
      label,
      keyword,
      count,
      firstPhone,
      concurrency: settings.concurrency,
      backlog: settings.backlog,
      log: settings.log,
    });
}

/**
 * Loads `count` conversations in two tranches, `firstTranche(count)` then the rest, and reads
 * the memory after the first: the bytes per conversation are then the slope from that reading
 * to the last, without the fixed costs that come with the first traffic.
 */
async function loadInTranches(
  load: Load,
  label: string,
  keyword: string,
  count: number,
  read: () => Promise<MemoryReading>,
  log: (line: string) => void,
): Promise<{
  firstLoad: LoadedConversations;
  first: MemoryReading;
  restLoad: LoadedConversations;
  all: LoadedConversations;
}> {
  const firstCount = firstTranche(count);
  const firstLoad =
    firstCount > 0 ? await load(`${label}, first tranche`, keyword, firstCount, 0) : noLoad;
  checkLoad(`${label}, first tranche`, firstLoad);
  const first = await read();
  log(
    `${label}: first ${firstCount.toLocaleString('en')} conversations, used_memory ${mib(first.usedMemory)}; loading the other ${(count - firstCount).toLocaleString('en')}`,
  );
  const restLoad = await load(label, keyword, count - firstCount, firstCount);
  checkLoad(label, restLoad);
  return { firstLoad, first, restLoad, all: sumLoads(firstLoad, restLoad) };
}

/** Two loads' counts together; their times end to end. */
function sumLoads(a: LoadedConversations, b: LoadedConversations): LoadedConversations {
  return {
    conversations: a.conversations + b.conversations,
    failed: a.failed + b.failed,
    retried: a.retried + b.retried,
    sms: a.sms + b.sms,
    statusNotifications: a.statusNotifications + b.statusNotifications,
    failedStatusAttempts: a.failedStatusAttempts + b.failedStatusAttempts,
    loadMs: a.loadMs + b.loadMs,
    settledMs: a.settledMs + b.settledMs,
  };
}

/** A load whose conversations did not all start would make every per-conversation figure wrong. */
function checkLoad(label: string, load: LoadedConversations): void {
  if (load.failed > 0) {
    throw new Error(`${label}: ${load.failed} notifications were never acknowledged`);
  }
  if (load.sms !== load.conversations) {
    throw new Error(`${label}: ${load.sms} SMS for ${load.conversations} conversations`);
  }
}

/** How many Redis functions the SUT has loaded, and the memory INFO gives them. */
async function functionsLoaded(redis: Redis): Promise<string> {
  const info = await redis.info('memory');
  const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? 0);
  return `${field('number_of_functions')} functions loaded (used_memory_functions ${field('used_memory_functions')} B)`;
}

/**
 * Waits out the keys that expire within `expiryWaitSeconds` (a type all of whose keys have
 * such a TTL: they belong to the moment just after a turn, not to an idle conversation), then
 * takes the census again (its PTTL on every key also frees the expired keys Redis's active
 * expiry has not reached yet) and reads a stable `used_memory`.
 */
async function readMemory(
  redis: Redis,
  prefix: string,
  settings: FootprintSettings,
): Promise<MemoryReading> {
  let census = await takeKeyCensus(redis, prefix, settings);
  const limitMs = settings.expiryWaitSeconds * 1000;
  const shortLived = census.types.filter(
    (type) => type.noTtl === 0 && type.maxTtlMs !== undefined && type.maxTtlMs <= limitMs,
  );
  let waitedMs = 0;
  if (shortLived.length > 0) {
    const lastExpiry = Math.max(...shortLived.map((type) => type.lastExpiryAt ?? 0));
    waitedMs = Math.max(0, lastExpiry - Date.now()) + 1_000;
    settings.log(
      `  waiting ${seconds(waitedMs)} for short-lived keys to expire: ${shortLived
        .map((type) => `${type.type} ${type.count}`)
        .join(', ')}`,
    );
    await new Promise((resolve) => setTimeout(resolve, waitedMs));
    census = await takeKeyCensus(redis, prefix, settings);
  }
  const memory = await waitForStableMemory(redis);
  return {
    usedMemory: memory.bytes,
    stable: memory.stable,
    census,
    waitedOut: shortLived.map((type) => ({ type: type.type, count: type.count })),
    waitedMs,
  };
}

function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
