import type { CampaignRef, RecipientEntry, RecipientState } from '../store/campaign-records.ts';
import type { Store } from '../store/store.ts';
import { apiCampaign, apiRow } from './api-campaign.ts';
import { recipientStartId } from './decide-firing.ts';
import { checkSendTimeSpec, type PastPolicy, type SendTimeSpec, sendTimeOf } from './send-time.ts';
import { startRequestHash } from './start-request-hash.ts';

export { apiCampaignName, apiRow } from './api-campaign.ts';

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
  /**
   * The bot of the phone's active conversation, when a start now is refused for it (the bot's
   * `startPolicy` is skip): answered `active_conversation`, recording nothing, unless the request
   * is a retry of one recorded.
   */
  busyWith?: string;
}

export type ScheduleAnswer =
  | {
      outcome: 'scheduled' | 'rescheduled' | 'duplicate';
      at: number;
      state: RecipientState;
      /** The record's revision: its start event's id carries it. */
      revision: number;
      /** Its start's id (`recipientStartId`): the start event's is this, then `:0`. */
      id: string;
      /** Why a duplicate's start was skipped or failed (`cancelled`, `opted_out`, …). */
      reason?: string;
    }
  | { outcome: 'past_due' | 'key_conflict' | 'opted_out'; message: string }
  | { outcome: 'bad_date'; message: string; field: string }
  | { outcome: 'active_conversation'; activeBot: string; message: string };

/**
 * Records a keyed start for its whole life (DESIGN §3: "scheduled starts are records"), in the
 * location's API campaign, where the campaign runner fires it at its time. The same request
 * under the same key is a `duplicate`, whatever became of the start (a retry days after it
 * fired starts nothing); another time or input `rescheduled` (a new revision, which fires once
 * more); another phone `key_conflict`, as is another request without a time for a start that
 * already ended. A phone that opted out, or that is busy with `busyWith`, is refused and
 * nothing is recorded. A time already past follows `past`: recorded as skipped `past_due`
 * (never dropped silently), or sent now when late by at most `sendIfWithin`. A bad spec throws
 * the `ValidationError` of `checkSendTimeSpec`, before anything is read.
 */
export async function scheduleStart(
  store: Store,
  start: ScheduledStart,
  now: number,
): Promise<ScheduleAnswer> {
  const field = start.relativeTo?.replace(/^input\./, '');
  const spec: SendTimeSpec = {
    timeZone: start.timeZone,
    window: start.deliveryWindow,
    past: start.past,
    ...(field !== undefined
      ? { relativeTo: field, offset: start.offset ?? '0m' }
      : { at: start.at }),
  };
  checkSendTimeSpec(spec);
  const input =
    typeof start.input === 'object' && start.input !== null
      ? (start.input as Record<string, unknown>)
      : {};
  const timed = start.at !== undefined || field !== undefined;
  // The time asked for, before the past policy: a retry asks the same one, whenever it comes.
  let asked: number | 'now' = 'now';
  if (timed) {
    const intended = sendTimeOf(spec, input, Number.NEGATIVE_INFINITY);
    if ('skip' in intended) {
      return {
        outcome: 'bad_date',
        message: `input.${field}: ${intended.message}`,
        field: `input.${field}`,
      };
    }
    asked = intended.at;
  }
  const request = startRequestHash({ ...start, asked });
  const meta = await apiCampaign(store, start.location, start.ratePerSecond, now);
  const row = apiRow(start.key);
  const known = (await store.findRecipient(meta, row))?.entry;
  if (known && known.record.phone !== start.phone) {
    return {
      outcome: 'key_conflict',
      message: "this key was used for another phone's start: give this start a key of its own",
    };
  }
  if (known && sameRequest(known, request)) {
    if (known.record.state === 'skipped' && known.record.reason === 'past_due') {
      return { outcome: 'past_due', message: 'this start was already recorded as past due' };
    }
    return duplicate(meta, known);
  }
  if (!timed && known && !waiting(known)) {
    return {
      outcome: 'key_conflict',
      message: `this key's start is ${known.record.state}, for another request: give a new start a key of its own, or an \`at\` to start it again then`,
    };
  }
  if (await store.isSuppressed({ location: start.location, phone: start.phone })) {
    return { outcome: 'opted_out', message: 'the phone opted out (STOP)' };
  }
  if (start.busyWith !== undefined) {
    return {
      outcome: 'active_conversation',
      activeBot: start.busyWith,
      message: `the phone has an active conversation with bot '${start.busyWith}'`,
    };
  }
  const record = {
    phone: start.phone,
    bot: start.bot,
    input: start.input,
    timeZone: start.timeZone,
    request,
    since: known?.record.since ?? now,
    ...(start.deliveryWindow !== undefined && { window: start.deliveryWindow }),
  };
  const when = sendTimeOf(spec, input, now);
  if ('skip' in when) {
    // Only past_due here: a bad date was answered above, before anything was read.
    await store.upsertRecipients(meta, meta.generation, [
      { row, record: { ...record, state: 'skipped', reason: when.skip, due: now } },
    ]);
    return { outcome: 'past_due', message: when.message };
  }
  const written = await store.upsertRecipients(meta, meta.generation, [
    { row, record: { ...record, state: 'scheduled', due: when.at } },
  ]);
  if (written.optedOut > 0) return { outcome: 'opted_out', message: 'the phone opted out (STOP)' };
  if (written.unchanged > 0) {
    // The same request, written meanwhile by a concurrent call: answer what it became.
    const again = (await store.findRecipient(meta, row))?.entry;
    if (again) return duplicate(meta, again);
  }
  const revision = known ? known.record.revision + 1 : 0;
  return {
    outcome: known ? 'rescheduled' : 'scheduled',
    at: when.at,
    state: 'scheduled',
    revision,
    id: recipientStartId(meta, { row, record: { revision, since: record.since } }),
  };
}

const waiting = (entry: RecipientEntry) =>
  entry.record.state === 'scheduled' || entry.record.state === 'held';

/** The same request as the one recorded (a record without its request hash is not). */
const sameRequest = (known: RecipientEntry, request: string) => known.record.request === request;

function duplicate(meta: CampaignRef, known: RecipientEntry): ScheduleAnswer {
  return {
    outcome: 'duplicate',
    at: known.record.due ?? 0,
    state: known.record.state,
    revision: known.record.revision,
    id: recipientStartId(meta, known),
    ...((known.record.state === 'skipped' || known.record.state === 'failed') &&
      known.record.reason !== undefined && { reason: known.record.reason }),
  };
}
