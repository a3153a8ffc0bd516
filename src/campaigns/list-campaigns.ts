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
 * The campaigns of a location (every location's when absent), by name, each with its counts
 * (counters: O(campaigns × partitions) calls, whatever the number of recipients). The reserved
 * ones (`_api`, the admin API's scheduled starts) only with `all`.
 *
 * @example
 * for (const { meta, total } of await listCampaigns(store, { location: 'paris' })) …
 */
export async function listCampaigns(
  store: Store,
  options: { location?: string; all?: boolean } = {},
): Promise<CampaignListEntry[]> {
  const metas = (await store.listCampaigns(options.location)).filter(
    (meta) => options.all || !meta.name.startsWith('_'),
  );
  return Promise.all(
    metas.map(async (meta) => {
      const recipients = await store.campaignCounts(meta);
      const total = Object.values(recipients).reduce((sum, n) => sum + n, 0);
      return { meta, recipients, total };
    }),
  );
}
