import { requestLocation } from '../admin/request-location.ts';
import { type AppConfig, loadConfig } from '../app/config.ts';
import { loadBots } from '../bot/load-bots.ts';
import { ConfigError, ReplyflowError } from '../errors.ts';
import { createLogger } from '../observability/logger.ts';
import { type BotRef, readOverview } from '../stats/read-stats.ts';
import { reconcileActivity } from '../stats/reconcile-activity.ts';
import type { Store } from '../store/store.ts';
import { formatTable } from './format-table.ts';
import { openDeploymentStore } from './open-deployment-store.ts';

/** `replyflow stats show`, loaded when it runs (stats-command.ts defines its options). */
export function showStats(options: { location?: string }): Promise<void> {
  return run('show', (config) => show(config, options));
}

/** `replyflow stats reconcile`. */
export function reconcileStats(): Promise<void> {
  return run('reconcile', reconcile);
}

async function run(name: string, action: (config: AppConfig) => Promise<void>): Promise<void> {
  try {
    await action(await loadConfig(process.env));
  } catch (error) {
    if (!(error instanceof ReplyflowError)) throw error;
    process.stderr.write(`replyflow stats ${name}: ${error.code}: ${error.message}\n`);
    process.exitCode = 1;
  }
}

async function withStore(config: AppConfig, doing: string, use: (store: Store) => Promise<void>) {
  const logger = createLogger({ level: 'warn', destination: process.stderr });
  const { store, close } = openDeploymentStore(config, doing, logger);
  try {
    await use(store);
  } finally {
    await close();
  }
}

/** The deployment's bots in each location (those of REPLYFLOW_BOTS_DIR). */
async function botsOf(config: AppConfig, location?: string): Promise<BotRef[]> {
  const registry = await loadBots(config.botsDir);
  let locations = config.locations.map((l) => l.name);
  if (location !== undefined) {
    const found = requestLocation(config.locations, location);
    if (typeof found === 'string') throw new ConfigError(found);
    locations = [found.name];
  }
  return locations.flatMap((name) =>
    [...registry.bots.keys()].map((bot) => ({ location: name, bot })),
  );
}

async function show(config: AppConfig, options: { location?: string }): Promise<void> {
  const bots = await botsOf(config, options.location);
  await withStore(config, 'replyflow stats show reads the counters', async (store) => {
    const overview = await readOverview(store, bots, Date.now());
    const rows = overview.bots.map((row) => ({
      location: row.location,
      bot: row.bot,
      active: row.active,
      'started today': row.today.started,
      'completed today': row.today.completed,
      'opted out today': row.today.opted_out,
      'errored today': row.today.errored,
      'expired today': row.today.expired,
      'started 7d': row.week.started,
      'completed 7d': row.week.completed,
      'sent 7d': row.week.sent,
      'failed 7d': row.week.failed,
    }));
    process.stdout.write(
      `${formatTable(rows, [
        'location',
        'bot',
        'active',
        'started today',
        'completed today',
        'opted out today',
        'errored today',
        'expired today',
        'started 7d',
        'completed 7d',
        'sent 7d',
        'failed 7d',
      ])}\n`,
    );
  });
}

async function reconcile(config: AppConfig): Promise<void> {
  const bots = await botsOf(config);
  await withStore(config, 'replyflow stats reconcile recounts the records', async (store) => {
    const report = await reconcileActivity(store, { bots });
    process.stdout.write(
      `${report.records} active conversations recounted; ${report.corrected.length} counters corrected${report.skipped > 0 ? `, ${report.skipped} moving while read (left for the next run)` : ''}\n`,
    );
    for (const { name, field, by } of report.corrected) {
      process.stdout.write(`  ${name} ${field}: ${by > 0 ? '+' : ''}${by}\n`);
    }
  });
}
