import type { Store } from '../store/store.ts';
import { getApiCampaign } from './api-campaign.ts';
import { defaultLatenessMs } from './decide-firing.ts';

/**
 * Forgets the keyed API starts of `locations` that ended (started, skipped, failed) longer than
 * `keepMs` (REPLYFLOW_RETENTION) ago: a key is remembered that long, then nothing of it is kept
 * (DESIGN §2.7). A record's time is when it was due (or held until); a start fires at most
 * `defaultLatenessMs` after it, so a record goes once its time is older than `keepMs` plus
 * that. A cancelled start is older than its cancel; one a stopped runner skipped late may go
 * sooner after its skip, and asked again it sends what was never sent. Waiting starts stay.
 * Answers how many records went.
 */
export async function pruneApiStarts(
  store: Store,
  locations: readonly string[],
  now: number,
  keepMs: number,
): Promise<number> {
  const endedBefore = now - keepMs - defaultLatenessMs;
  let pruned = 0;
  for (const location of locations) {
    const meta = await getApiCampaign(store, location);
    if (!meta) continue;
    for (let partition = 0; partition < store.partitions; partition++) {
      pruned += await store.pruneRecipients(meta, partition, endedBefore);
    }
  }
  return pruned;
}
