import { createHash } from 'node:crypto';
import type { CampaignMeta, CampaignRef, RecipientEntry } from '../store/campaign-records.ts';
import { storableJson } from '../store/storable-json.ts';
import type { Store } from '../store/store.ts';
import { type PastPolicy, sendTimeOf } from './send-time.ts';

/** The campaign that holds a location's keyed and scheduled API starts (a name no user campaign can take). */
export const apiCampaignName = '_api';

/** Chunks per partition of the API's starts: about 64,000 live keys at 64 a chunk. */
const apiChunks = 64;

/** A start for later, or a keyed one (`POST /admin/conversations` with `key`, `at`, `relativeTo`). */
export interface ScheduledStart {
  location: string;
  bot: string;
  /** Digits with the country prefix. */
  phone: string;
  input: unknown;
  key: string;
  /** An instant or a wall time in `timeZone`; absent with `relativeTo`, or for now. */
  at?: string;
  /** `input.<field>` (or a bare field name) holding the date the offset is counted from. */
  relativeTo?: string;
  offset?: string;
  deliveryWindow?: string;
  timeZone: string;
  past: PastPolicy;
  /** The location's send rate: the API's starts fire no faster. */
  ratePerSecond: number;
}

export type ScheduleAnswer =
  | { outcome: 'scheduled' | 'rescheduled' | 'duplicate'; at: number; state: string }
  | { outcome: 'past_due' | 'bad_date' | 'key_conflict'; message: string };

/** A key's row in the API campaign: scoped to its location, of bounded length. */
export const apiRow = (key: string) =>
  `k${createHash('sha256').update(key).digest('hex').slice(0, 31)}`;

/**
 * Records a keyed start for its whole life (DESIGN §3: "scheduled starts are records"), in the
 * location's API campaign, where the campaign runner fires it at its time: the same key with
 * the same request is a `duplicate`, with another time or input it is `rescheduled` (a new
 * revision, which fires once more), with another phone it is refused (`key_conflict`). A time
 * already past follows `past`: recorded as skipped `past_due` (never dropped silently), or sent
 * now when late by at most `sendIfWithin`. The key is kept as long as the record: at least
 * `REPLYFLOW_RETENTION`.
 */
export async function scheduleStart(
  store: Store,
  start: ScheduledStart,
  now: number,
): Promise<ScheduleAnswer> {
  const meta = await apiCampaign(store, start.location, start.ratePerSecond, now);
  const row = apiRow(start.key);
  const relativeTo = start.relativeTo?.replace(/^input\./, '');
  const when = sendTimeOf(
    {
      timeZone: start.timeZone,
      window: start.deliveryWindow,
      past: start.past,
      ...(relativeTo !== undefined
        ? { relativeTo, offset: start.offset ?? '0m' }
        : { at: start.at }),
    },
    typeof start.input === 'object' && start.input !== null
      ? (start.input as Record<string, unknown>)
      : {},
    now,
  );
  const found = await store.findRecipient(meta, row);
  const known = found?.entry;
  if (known && known.record.phone !== start.phone) {
    return {
      outcome: 'key_conflict',
      message:
        'this key was used for another phone: cancel that start first (DELETE /admin/conversations/scheduled/:key)',
    };
  }
  const record = {
    phone: start.phone,
    bot: start.bot,
    input: start.input,
    timeZone: start.timeZone,
    ...(start.deliveryWindow !== undefined && { window: start.deliveryWindow }),
  };
  if ('skip' in when) {
    await store.upsertRecipients(meta, 1, [
      { row, record: { ...record, state: 'skipped', reason: when.skip, due: now } },
    ]);
    return { outcome: when.skip, message: when.message };
  }
  if (known && sameStart(known, record, when.at)) {
    return { outcome: 'duplicate', at: known.record.due ?? when.at, state: known.record.state };
  }
  await store.upsertRecipients(meta, 1, [
    { row, record: { ...record, state: 'scheduled', due: when.at } },
  ]);
  return { outcome: known ? 'rescheduled' : 'scheduled', at: when.at, state: 'scheduled' };
}

/**
 * Cancels a keyed start that has not fired: it becomes skipped, `cancelled`. Answers what it
 * found: `cancelled`, `not_found`, or the state it had gone on to (`started`, `skipped`).
 */
export async function cancelScheduledStart(
  store: Store,
  location: string,
  key: string,
  now: number,
): Promise<{ outcome: 'cancelled' | 'not_found' | 'started' | 'skipped' | 'failed' }> {
  const meta = await store.getCampaign({ location, name: apiCampaignName });
  const found = meta && (await store.findRecipient(meta, apiRow(key)));
  if (!found) return { outcome: 'not_found' };
  const { state: was, revision } = found.entry.record;
  if (was !== 'scheduled' && was !== 'held') return { outcome: was };
  const fired = await store.fireRecipients(
    found.chunk,
    [{ row: found.entry.row, revision, action: 'skip', reason: 'cancelled' }],
    now,
  );
  if (fired.state === 'active' && fired.outcomes[0] === 'skipped') return { outcome: 'cancelled' };
  // It fired meanwhile: read what it became.
  const again = await store.findRecipient(meta, found.entry.row);
  const state = again?.entry.record.state ?? 'started';
  return { outcome: state === 'scheduled' || state === 'held' ? 'not_found' : state };
}

/** The same request as the one recorded: same bot, input and time. */
function sameStart(
  known: RecipientEntry,
  record: { bot: string; input: unknown },
  at: number,
): boolean {
  return (
    known.record.bot === record.bot &&
    known.record.due === at &&
    storableJson(known.record.input ?? {}) === storableJson(record.input ?? {})
  );
}

/** The location's API campaign, made on first use. */
async function apiCampaign(
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
        late: { kind: 'sendIfWithin', ms: 15 * 60_000 },
        chunks: apiChunks,
        generation: 1,
        createdAt: now,
        updatedAt: now,
      };
  await store.saveCampaign(meta);
  return meta;
}
