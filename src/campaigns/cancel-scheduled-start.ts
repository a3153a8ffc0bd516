import { errorCodes } from '../errors.ts';
import type { Store } from '../store/store.ts';
import { apiRow, getApiCampaign } from './api-campaign.ts';
import { CampaignError } from './campaign-error.ts';

/**
 * Cancels a keyed start that has not fired: it becomes skipped, `cancelled` (kept, so the same
 * request again is a duplicate and never starts it). Answers what it found: `cancelled` (also
 * when it was already: a retried cancel gets the same answer), `not_found`, or the state it had
 * gone on to (`started`, `skipped`, `failed`, with its reason).
 */
export async function cancelScheduledStart(
  store: Store,
  location: string,
  key: string,
  now: number,
): Promise<{
  outcome: 'cancelled' | 'not_found' | 'started' | 'skipped' | 'failed';
  reason?: string;
}> {
  const meta = await getApiCampaign(store, location);
  if (!meta) return { outcome: 'not_found' };
  // A reschedule between the read and the cancel makes the cancel stale: read it again.
  for (let attempt = 0; attempt < 5; attempt++) {
    const found = await store.findRecipient(meta, apiRow(key));
    if (!found) return { outcome: 'not_found' };
    const { state, revision, reason } = found.entry.record;
    if (state === 'skipped' && reason === 'cancelled') return { outcome: 'cancelled' };
    if (state !== 'scheduled' && state !== 'held') {
      return { outcome: state, ...(reason !== undefined && { reason }) };
    }
    const fired = await store.fireRecipients(
      found.chunk,
      [{ row: found.entry.row, revision, action: 'skip', reason: 'cancelled' }],
      now,
    );
    if (fired.state !== 'active') {
      throw new CampaignError(
        errorCodes.CAMPAIGN_CONFLICT,
        `the API starts of '${location}' are ${fired.state}: resume them to cancel one`,
      );
    }
    if (fired.outcomes[0] === 'skipped') return { outcome: 'cancelled' };
  }
  throw new CampaignError(
    errorCodes.CAMPAIGN_CONFLICT,
    `the start '${key}' kept changing while it was being cancelled: try again`,
  );
}
