import type { CampaignMeta } from '../store/campaign-records.ts';
import type { Store } from '../store/store.ts';

/** A campaign in a list: its definition and its recipients per state. */
export interface CampaignListEntry {
  meta: CampaignMeta;
  /** Recipients per state field (`scheduled`, `started`, `skipped:opted_out`…). */
  recipients: Record<string, number>;
  total: number;
}

/**
 * The campaigns of a location (when absent, those of each of `locations`, the configured ones),
 * by name, each with its counts (counters: O(campaigns × partitions) calls, whatever the number
 * of recipients). The reserved ones (`_api`, the admin API's scheduled starts) only with `all`.
 * Give `locations` whenever you know them: without either, the store looks for every location's
 * campaigns with a SCAN of the whole keyspace, seconds with a million conversations.
 *
 * @example
 * for (const { meta, total } of await listCampaigns(store, { location: 'paris' })) …
 */
export async function listCampaigns(
  store: Store,
  options: { location?: string; locations?: readonly string[]; all?: boolean } = {},
): Promise<CampaignListEntry[]> {
  const wanted =
    options.location !== undefined ? [options.location] : (options.locations ?? [undefined]);
  const metas = (await Promise.all(wanted.map((location) => store.listCampaigns(location))))
    .flat()
    .filter((meta) => options.all || !meta.name.startsWith('_'));
  return Promise.all(
    metas.map(async (meta) => {
      const recipients = await store.campaignCounts(meta);
      const total = Object.values(recipients).reduce((sum, n) => sum + n, 0);
      return { meta, recipients, total };
    }),
  );
}
