import { funnelHourCounters } from '../conversation/campaign-funnel.ts';
import { errorCodes } from '../errors.ts';
import type { CampaignRef } from '../store/campaign-records.ts';
import type { Store } from '../store/store.ts';
import { CampaignError } from './campaign-error.ts';

/** The stages an hour of progress gives, `started` first: the funnel's, in order. */
export const progressStages = [
  'started',
  'sent',
  'delivered',
  'answered',
  'completed',
  'opted_out',
  'errored',
  'expired',
  'interrupted',
] as const;

/** What happened to a campaign's conversations in one UTC hour (`yyyy-mm-ddThh`). */
export type ProgressHour = { hour: string } & Record<(typeof progressStages)[number], number>;

/**
 * A campaign's progress hour by hour, oldest first: the hours that counted something, from its
 * funnel's hourly counters (`countFunnel`), one read whatever the number of recipients.
 *
 * @example
 * const hours = await readCampaignProgress(store, { location: 'paris', name: 'spring' });
 */
export async function readCampaignProgress(
  store: Pick<Store, 'getCampaign' | 'readCounters'>,
  ref: CampaignRef,
): Promise<ProgressHour[]> {
  const [meta, counters] = await Promise.all([
    store.getCampaign(ref),
    store.readCounters(funnelHourCounters(ref.location, ref.name)),
  ]);
  if (!meta) {
    throw new CampaignError(
      errorCodes.CAMPAIGN_NOT_FOUND,
      `no campaign '${ref.name}' in location '${ref.location}': see replyflow campaigns list`,
    );
  }
  const hours = new Map<string, ProgressHour>();
  for (const [field, count] of Object.entries(counters)) {
    const [stage, hour] = field.split('@');
    if (!hour || !(progressStages as readonly string[]).includes(stage ?? '')) continue;
    let row = hours.get(hour);
    if (!row) {
      row = {
        hour,
        ...Object.fromEntries(progressStages.map((name) => [name, 0])),
      } as ProgressHour;
      hours.set(hour, row);
    }
    row[stage as (typeof progressStages)[number]] += count;
  }
  return [...hours.values()].sort((a, b) => a.hour.localeCompare(b.hour));
}
