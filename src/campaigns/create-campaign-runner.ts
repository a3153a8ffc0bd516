import type { BotRegistry } from '../bot/bot-registry.ts';
import type { Logger } from '../observability/logger.ts';
import type { SharedLimiter } from '../outbox/shared-limiter.ts';
import type { Clock } from '../scheduler/clock.ts';
import { campaignId } from '../store/campaign-id.ts';
import type { CampaignChunk, CampaignMeta } from '../store/campaign-records.ts';
import type { Store } from '../store/store.ts';
import { storeOutage } from '../store/store-outage.ts';
import { decideFiring, toFiringDecision } from './decide-firing.ts';
import { pruneApiStarts } from './prune-api-starts.ts';
import { pruneFinishedCampaigns } from './prune-finished-campaigns.ts';

export interface CampaignRunnerOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  registry: BotRegistry;
  /** The campaign's own rate (`ratePerSecond`), one schedule shared by every process. */
  limiterFor(meta: CampaignMeta): SharedLimiter;
  /** When `now` falls in the location's quiet hours, their end. */
  quietUntil?(location: string, now: number): number | undefined;
  /** How long a claimed chunk is hidden from other runners (default 30 s). */
  leaseMs?: number;
  /** The longest sleep, and the pace of the safety read of one partition (default 1 s). */
  safetyMs?: number;
  /** Hears each recipient started, held or skipped (metrics). */
  onFired?(outcome: string): void;
  /**
   * Forgets the keyed API starts of these locations once they ended longer than `keepMs`
   * (REPLYFLOW_RETENTION) ago, checked every `everyMs` (default an hour) of the clock.
   */
  pruneApiStarts?: { locations: readonly string[]; keepMs: number; everyMs?: number };
}

const none = Number.POSITIVE_INFINITY;
/** How long a campaign's definition read from the store is used before it is read again. */
const definitionTtlMs = 2_000;

/**
 * Starts campaign recipients on time (DESIGN §3, "scheduled starts are records"): it keeps each
 * partition's earliest due campaign, sleeps until then (or until a process announces an
 * earlier one), claims the due chunks with a lease, decides for each due recipient (start,
 * hold for the window or the quiet hours, skip when too late) and fires them one by one at the
 * campaign's rate, so the campaign feeds the engine through a buffer of about one second and a
 * pause or a cancel acts within that. Each firing is one atomic store call that checks the
 * recipient is still as read and the campaign still active: any number of processes may run a
 * runner, and each recipient starts once.
 */
export function createCampaignRunner(options: CampaignRunnerOptions) {
  const { store, clock, logger } = options;
  const outage = storeOutage(store);
  const leaseMs = options.leaseMs ?? 30_000;
  const safetyMs = options.safetyMs ?? 1_000;
  const due: number[] = new Array(store.partitions).fill(none);
  /** The partitions a run is going through now, and that run. */
  const busy = new Map<number, Promise<void>>();
  const definitions = new Map<string, { meta: CampaignMeta | null; readAt: number }>();
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let safetyNext = 0;
  let stopListening: (() => void) | undefined;
  const inFlight = new Set<Promise<unknown>>();
  let nextPruneAt = Number.NEGATIVE_INFINITY;
  let pruning: Promise<void> | undefined;

  async function definition(chunk: CampaignChunk): Promise<CampaignMeta | null> {
    const id = campaignId(chunk);
    const known = definitions.get(id);
    if (known && Date.now() - known.readAt < definitionTtlMs) return known.meta;
    const meta = await store.getCampaign(chunk);
    definitions.set(id, { meta, readAt: Date.now() });
    return meta;
  }

  /** Fires what is due in one chunk, at most half a lease's worth of starts at the campaign's rate. */
  async function runChunk(chunk: CampaignChunk): Promise<void> {
    const meta = await definition(chunk);
    if (meta?.status !== 'active') return;
    const now = clock.now();
    const decisions = decideFiring(meta, await store.readChunk(chunk), now, (at) =>
      options.quietUntil?.(meta.location, at),
    );
    // The bot's startPolicy toward a conversation already active: `skip` is the engine's default.
    const startPolicy = (bot: string | undefined) => {
      const policy = options.registry.bots.get(bot ?? meta.bot)?.startPolicy;
      return policy === 'replace' || policy === 'queue' ? policy : undefined;
    };
    const others = decisions.filter((d) => d.action !== 'start');
    if (others.length > 0) {
      const fired = await store.fireRecipients(
        chunk,
        others.map((d) => toFiringDecision(d, meta, chunk.chunk, now, undefined)),
        now,
      );
      if (fired.state !== 'active') return;
      for (const outcome of fired.outcomes) options.onFired?.(outcome);
    }
    const limiter = options.limiterFor(meta);
    const most = Math.max(1, Math.floor((meta.ratePerSecond * leaseMs) / 2_000));
    for (const decision of decisions.filter((d) => d.action === 'start').slice(0, most)) {
      if (!running) return;
      await limiter.acquire();
      const at = clock.now();
      const fired = await store.fireRecipients(
        chunk,
        [toFiringDecision(decision, meta, chunk.chunk, at, startPolicy(decision.entry.record.bot))],
        at,
      );
      if (fired.state !== 'active') {
        definitions.delete(campaignId(chunk));
        return;
      }
      options.onFired?.(fired.outcomes[0] ?? 'stale');
    }
  }

  /** Runs a partition, or, when a run of it is under way, waits for that one and runs it again. */
  function runPartition(partition: number): Promise<void> {
    const run = (busy.get(partition) ?? Promise.resolve()).then(() => runPartitionNow(partition));
    busy.set(partition, run);
    void run.finally(() => {
      if (busy.get(partition) === run) busy.delete(partition);
      schedule();
    });
    return run;
  }

  async function runPartitionNow(partition: number): Promise<void> {
    try {
      for (;;) {
        const chunks = await store.claimDueChunks(partition, clock.now(), leaseMs, 8);
        outage.answered(logger);
        if (chunks.length === 0) break;
        // Each chunk on its own: one campaign's rate is shared by all of them.
        await Promise.all(
          chunks.map(async (chunk) => {
            try {
              await runChunk(chunk);
            } finally {
              await store.settleChunk(chunk, (await definition(chunk))?.chunks ?? 0);
            }
          }),
        );
        if (!running) break;
      }
      due[partition] = (await store.nextCampaignDue(partition)) ?? none;
    } catch (error) {
      outage.failed(logger, error, 'campaign runner');
      due[partition] = clock.now() + safetyMs;
    }
  }

  /** Prunes the API's ended starts when an hour (`everyMs`) went by since the last time. */
  function pruneIfDue(): Promise<void> | undefined {
    const prune = options.pruneApiStarts;
    const now = clock.now();
    if (!prune || pruning || now < nextPruneAt) return pruning;
    nextPruneAt = now + (prune.everyMs ?? 3_600_000);
    pruning = pruneApiStarts(store, prune.locations, now, prune.keepMs)
      .then(async (count) => {
        if (count > 0) logger.info({ count }, 'forgot the keyed API starts past the retention');
        const campaigns = await pruneFinishedCampaigns(store, now, prune.keepMs);
        if (campaigns > 0) {
          logger.info({ count: campaigns }, 'forgot finished campaigns past the retention');
        }
      })
      .catch((error: unknown) => outage.failed(logger, error, 'campaign runner'))
      .finally(() => {
        pruning = undefined;
      });
    return pruning;
  }

  function track<T>(work: Promise<T>): void {
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  }

  async function safetyRead(): Promise<void> {
    const partition = safetyNext;
    safetyNext = (safetyNext + 1) % store.partitions;
    if (busy.has(partition)) return;
    try {
      due[partition] = (await store.nextCampaignDue(partition)) ?? none;
    } catch (error) {
      outage.failed(logger, error, 'campaign runner');
    }
  }

  function wake(): void {
    timer = undefined;
    if (!running) return;
    const now = clock.now();
    for (let p = 0; p < store.partitions; p++) {
      if (due[p]! <= now && !busy.has(p)) track(runPartition(p));
    }
    track(safetyRead().finally(schedule));
    const pruned = pruneIfDue();
    if (pruned) track(pruned);
  }

  function schedule(): void {
    if (!running) return;
    const earliest = Math.min(...due.filter((_, p) => !busy.has(p)));
    const wait = Math.max(0, Math.min(safetyMs, earliest - clock.now()));
    if (timer) clearTimeout(timer);
    timer = setTimeout(wake, wait);
    timer.unref?.();
  }

  return {
    start(): void {
      if (running) return;
      running = true;
      stopListening = store.onCampaignDue((partition, dueAt) => {
        due[partition] = Math.min(due[partition]!, dueAt);
        schedule();
      });
      track(
        Promise.all(
          Array.from({ length: store.partitions }, async (_, p) => {
            due[p] = (await store.nextCampaignDue(p)) ?? none;
          }),
        )
          .catch((error: unknown) => outage.failed(logger, error, 'campaign runner'))
          .finally(schedule),
      );
    },
    async stop(): Promise<void> {
      running = false;
      stopListening?.();
      if (timer) clearTimeout(timer);
      await Promise.allSettled([...inFlight]);
    },
    /** Fires everything due now, and waits for it (tests call it after moving a manual clock). */
    async tick(): Promise<void> {
      const wasRunning = running;
      running = true;
      try {
        // A partition the runner is going through is run once more after it: what came due
        // since that run began starts too.
        await Promise.all(Array.from({ length: store.partitions }, (_, p) => runPartition(p)));
        await pruneIfDue();
      } finally {
        running = wasRunning;
      }
    },
  };
}

export type CampaignRunner = ReturnType<typeof createCampaignRunner>;
