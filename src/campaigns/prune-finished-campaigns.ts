import type { Store } from '../store/store.ts';

/**
 * Forgets the definitions of campaigns with nothing left to start (no recipient scheduled or
 * held) whose last change is older than `keepMs` (REPLYFLOW_RETENTION): their recipients' keys
 * expire on their own once none waits (settle-chunk, sweep-recipients), and their definition
 * goes here (DESIGN §2.7). The API's `_api` campaign is never finished. Answers how many went.
 */
export async function pruneFinishedCampaigns(
  store: Store,
  now: number,
  keepMs: number,
): Promise<number> {
  let pruned = 0;
  for (const meta of await store.listCampaigns()) {
    if (meta.name.startsWith('_') || meta.updatedAt + keepMs > now) continue;
    const counts = await store.campaignCounts(meta);
    if ((counts.scheduled ?? 0) + (counts.held ?? 0) > 0) continue;
    await store.deleteCampaign(meta);
    pruned++;
  }
  return pruned;
}
