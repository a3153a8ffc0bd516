import { randomUUID } from 'node:crypto';
import type { Logger } from '../observability/logger.ts';
import type { Clock } from '../scheduler/clock.ts';
import type { Store } from '../store/store.ts';
import type { BotRef } from './read-stats.ts';
import { reconcileActivity } from './reconcile-activity.ts';

export interface ReconcileLoopOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** The bots of now, in every location. */
  bots: () => BotRef[];
  /** How often the activity gauges are recounted. Default one hour. */
  everyMs?: number;
  /** The first run, after start. Default a minute (a deploy's first minutes stay quiet). */
  firstAfterMs?: number;
}

/**
 * Recounts the activity gauges from the records every `everyMs` (the scheduler role), one
 * process of many each period (`Store.leaseTask`), and logs what it corrected: a drift is a
 * defect worth seeing, and the gauges of conversations older than the counters come right.
 */
export function startReconcileLoop(options: ReconcileLoopOptions): { stop(): void } {
  const everyMs = options.everyMs ?? 3_600_000;
  const token = randomUUID();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(run, delayMs);
    timer.unref();
  };
  const run = async () => {
    try {
      const leased = await options.store.leaseTask(
        'reconcile-activity',
        token,
        options.clock.now(),
        // Held a little less than the period, so the next period's run is free to take it.
        Math.max(1_000, everyMs - 5_000),
      );
      if (leased) {
        const report = await reconcileActivity(options.store, { bots: options.bots() });
        const log = report.corrected.length > 0 ? options.logger.warn : options.logger.info;
        log.call(
          options.logger,
          { records: report.records, corrected: report.corrected, skipped: report.skipped },
          report.corrected.length > 0
            ? 'stats: the activity counters had drifted from the records; corrected'
            : 'stats: the activity counters match the records',
        );
      }
    } catch (error) {
      options.logger.warn({ err: error }, 'stats: reconciliation failed; tried again next period');
    }
    schedule(everyMs);
  };
  schedule(options.firstAfterMs ?? 60_000);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
