import { errorCodes } from '../errors.ts';
import type { CampaignMeta, CampaignRef } from '../store/campaign-records.ts';
import type { Store } from '../store/store.ts';
import { CampaignError } from './campaign-error.ts';

/** What a pause, a resume or a cancel asks for. */
export type CampaignAction = 'pause' | 'resume' | 'cancel';

/**
 * Pauses, resumes or cancels a campaign. Each partition stops firing the moment its state is
 * written (the runner's firing checks it atomically), so a pause or a cancel acts within the
 * runner's buffer of about a second. A cancel is final: every recipient still waiting becomes
 * skipped, `cancelled`, and the campaign never fires again; resuming it is refused. Answers the
 * campaign as it now is, and how many recipients the cancel skipped.
 *
 * @example
 * await changeCampaignStatus(store, { location: 'paris', name: 'spring' }, 'pause', Date.now());
 */
export async function changeCampaignStatus(
  store: Store,
  ref: CampaignRef,
  action: CampaignAction,
  now: number,
): Promise<{ meta: CampaignMeta; cancelled: number }> {
  const meta = await store.getCampaign(ref);
  if (!meta) {
    throw new CampaignError(
      errorCodes.CAMPAIGN_NOT_FOUND,
      `no campaign '${ref.name}' in location '${ref.location}': see replyflow campaigns list`,
    );
  }
  if (meta.status === 'cancelled' && action !== 'cancel') {
    throw new CampaignError(
      errorCodes.CAMPAIGN_CONFLICT,
      `campaign '${ref.name}' was cancelled: a cancelled campaign never fires again (create a new one)`,
    );
  }
  const status = action === 'pause' ? 'paused' : action === 'resume' ? 'active' : 'cancelled';
  const next: CampaignMeta = { ...meta, status, updatedAt: now };
  // Stopping: the partitions first, then the definition. Resuming: the other way round, so a
  // runner that reads the definition finds it active by the time its chunks come due.
  if (status === 'active') {
    await store.saveCampaign(next);
    await store.setCampaignState(next, status);
  } else {
    await store.setCampaignState(next, status);
    await store.saveCampaign(next);
  }
  const cancelled =
    status === 'cancelled'
      ? await store.sweepRecipients(next, Number.MAX_SAFE_INTEGER, { keepRowsWithoutPhone: true })
      : 0;
  return { meta: next, cancelled };
}
