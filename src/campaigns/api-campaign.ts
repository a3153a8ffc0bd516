import { createHash } from 'node:crypto';
import type { CampaignMeta, CampaignRef } from '../store/campaign-records.ts';
import type { Store } from '../store/store.ts';
import { defaultLatenessMs } from './decide-firing.ts';

/** The campaign that holds a location's keyed and scheduled API starts (a name no user campaign can take). */
export const apiCampaignName = '_api';

/** Chunks per partition of the API's starts: about 64,000 live keys at 64 a chunk. */
const apiChunks = 64;

/** A key's row in the API campaign: scoped to its location, of bounded length. */
export const apiRow = (key: string) =>
  `k${createHash('sha256').update(key).digest('hex').slice(0, 31)}`;

/** The location's API campaign, as stored; null before its first start. */
export function getApiCampaign(store: Store, location: string): Promise<CampaignMeta | null> {
  return store.getCampaign({ location, name: apiCampaignName });
}

/**
 * The location's API campaign, made on first use. Its starts fire at the location's send rate;
 * a start the runner reaches more than `defaultLatenessMs` late (it was stopped) is skipped as
 * `past_due`, each start's own past policy having been applied when it was asked.
 */
export async function apiCampaign(
  store: Store,
  location: string,
  ratePerSecond: number,
  now: number,
): Promise<CampaignMeta> {
  const ref: CampaignRef = { location, name: apiCampaignName };
  const known = await store.getCampaign(ref);
  if (known && known.ratePerSecond === ratePerSecond) return known;
  const meta: CampaignMeta = known
    ? { ...known, ratePerSecond, updatedAt: now }
    : {
        v: 1,
        ...ref,
        bot: '',
        status: 'active',
        schedule: { at: 'each start its own' },
        ratePerSecond,
        timeZone: 'UTC',
        late: { kind: 'sendIfWithin', ms: defaultLatenessMs },
        chunks: apiChunks,
        generation: 1,
        createdAt: now,
        updatedAt: now,
      };
  await store.saveCampaign(meta);
  return meta;
}
