import type { LocationConfig } from '../app/config.ts';
import { CampaignError } from '../campaigns/campaign-error.ts';
import { cancelScheduledStart } from '../campaigns/cancel-scheduled-start.ts';
import type { Store } from '../store/store.ts';
import { requestLocation } from './request-location.ts';
import { startKeyProblem } from './start-by-key.ts';

export interface CancelDeps {
  store: Store;
  locations: readonly LocationConfig[];
  now(): number;
}

/** An HTTP-shaped answer, so the admin route sends it as is and the CLI prints it. */
export type CancelAnswer =
  | { status: 200; body: { cancelled: true; location: string; key: string } }
  | { status: 400 | 404 | 409; body: { error: string; field?: string; message?: string } };

/**
 * Cancels a keyed start that has not fired (`DELETE /admin/conversations/scheduled/:key`,
 * `replyflow conversations cancel KEY`): 400 naming `key` for one no start can have (over 200
 * characters, a lone surrogate), 200 `{ cancelled: true }` (again for a retried cancel),
 * 404 for a key never given, 409 `already_started` / `already_skipped` / `already_failed` (with
 * its reason) for one that fired. The record stays: the same start posted again is a duplicate.
 */
export async function cancelStartByKey(
  deps: CancelDeps,
  request: { location?: string | undefined; key: string },
): Promise<CancelAnswer> {
  const keyProblem = startKeyProblem(request.key);
  if (keyProblem) return { status: 400, body: { error: keyProblem, field: 'key' } };
  const location = requestLocation(deps.locations, request.location);
  if (typeof location === 'string') {
    return { status: 400, body: { error: location, field: 'location' } };
  }
  let found: Awaited<ReturnType<typeof cancelScheduledStart>>;
  try {
    found = await cancelScheduledStart(deps.store, location.name, request.key, deps.now());
  } catch (error) {
    if (!(error instanceof CampaignError)) throw error;
    return { status: error.status, body: { error: 'conflict', message: error.message } };
  }
  switch (found.outcome) {
    case 'cancelled':
      return { status: 200, body: { cancelled: true, location: location.name, key: request.key } };
    case 'not_found':
      return {
        status: 404,
        body: {
          error: 'not_found',
          message: `no start with key '${request.key}' in location '${location.name}'`,
        },
      };
    default:
      return {
        status: 409,
        body: {
          error: `already_${found.outcome}`,
          message: `the start with key '${request.key}' has ${found.outcome === 'started' ? 'started' : `been ${found.outcome}`}${found.reason ? ` (${found.reason})` : ''}: nothing to cancel`,
        },
      };
  }
}
