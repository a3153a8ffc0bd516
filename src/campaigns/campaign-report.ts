import { funnelCounters } from '../conversation/campaign-funnel.ts';
import { errorCodes } from '../errors.ts';
import type { CampaignMeta, CampaignRef } from '../store/campaign-records.ts';
import type { Store } from '../store/store.ts';
import { CampaignError } from './campaign-error.ts';

/** A campaign's progress, every figure from counters (never a walk of its recipients). */
export interface CampaignReport {
  meta: CampaignMeta;
  /** Recipients per state (`scheduled`, `held`, `started`, `skipped:<reason>`, `failed:<reason>`). */
  recipients: Record<string, number>;
  /** Every recipient, in exactly one state: the sum of `recipients`. */
  total: number;
  /**
   * The started conversations: `sent` (a message reported sent), `delivered`, `answered` (the
   * person replied), and how they ended: `completed`, `opted_out`, `errored`, `expired`,
   * `interrupted`.
   */
  funnel: Record<string, number>;
}

/**
 * A campaign's definition and progress, read from its counters: O(partitions) calls, whatever
 * the number of recipients.
 *
 * @example
 * const { total, recipients, funnel } = await campaignReport(store, { location: 'paris', name: 'spring' });
 */
export async function campaignReport(store: Store, ref: CampaignRef): Promise<CampaignReport> {
  const meta = await store.getCampaign(ref);
  if (!meta) {
    throw new CampaignError(
      errorCodes.CAMPAIGN_NOT_FOUND,
      `no campaign '${ref.name}' in location '${ref.location}': see replyflow campaigns list`,
    );
  }
  const [recipients, funnel] = await Promise.all([
    store.campaignCounts(ref),
    store.readCounters(funnelCounters(ref.location, ref.name)),
  ]);
  const total = Object.values(recipients).reduce((sum, count) => sum + count, 0);
  return { meta, recipients, total, funnel };
}
