import type { LocationConfig } from '../../app/config.ts';
import type { BotRegistry } from '../../bot/bot-registry.ts';
import { campaignView } from '../../campaigns/import-report.ts';
import { listCampaigns } from '../../campaigns/list-campaigns.ts';
import { readOverview } from '../../stats/read-stats.ts';
import type { Overview } from '../../stats/stats-types.ts';
import type { Store } from '../../store/store.ts';

/** A campaign on the first screen: its definition, recipients per state, and how far it went. */
export interface CampaignProgress {
  location: string;
  name: string;
  bot: string;
  status: string;
  total: number;
  recipients: Record<string, number>;
  /** Recipients no longer waiting (started, skipped or failed). */
  done: number;
}

/** `GET /admin/api/overview`: the locations, each bot's figures (`readOverview`) and the campaigns. */
export interface DashboardOverview extends Overview {
  locations: string[];
  campaigns: CampaignProgress[];
}

/** Recipient states still to come (`campaign-records.ts`'s `scheduled` and `held`). */
const waiting = new Set(['scheduled', 'held']);

/**
 * Reads the first screen: every loaded bot in every configured location (a few counter reads
 * each, never a conversation) and every campaign with its counts.
 */
export async function readDashboardOverview(
  store: Store,
  registry: BotRegistry,
  locations: readonly LocationConfig[],
  now: number,
): Promise<DashboardOverview> {
  const names = locations.map((location) => location.name);
  const bots = names.flatMap((location) =>
    [...registry.bots.keys()].sort().map((bot) => ({ location, bot })),
  );
  // Each configured location's campaigns hash: listing them with no location would SCAN the
  // whole keyspace (seconds with a million conversations).
  const [overview, ...perLocation] = await Promise.all([
    readOverview(store, bots, now),
    ...names.map((location) => listCampaigns(store, { location })),
  ]);
  const campaigns = perLocation.flat();
  return {
    ...overview,
    locations: names,
    campaigns: campaigns.map(({ meta, total, recipients }) => {
      const view = campaignView(meta);
      const pending = Object.entries(recipients)
        .filter(([state]) => waiting.has(state.split(':')[0] ?? ''))
        .reduce((sum, [, count]) => sum + count, 0);
      return {
        location: view.location,
        name: view.name,
        bot: view.bot,
        status: view.status,
        total,
        recipients,
        done: total - pending,
      };
    }),
  };
}
