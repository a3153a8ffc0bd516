import type { ConversationKey } from './records.ts';

/**
 * Where a campaign's recipient stands. Each recipient is in exactly one state at a time, and
 * every change of state moves the campaign's counters in the same atomic store call.
 * - `scheduled`: waits for its time;
 * - `held`: its time came outside the delivery window or the quiet hours, and it waits for them
 *   to open;
 * - `started`: its conversation was asked for (a start event in the phone's mailbox);
 * - `skipped`: it will never start, with a reason (`SkipReason`);
 * - `failed`: it could not be started, with a reason.
 */
export type RecipientState = 'scheduled' | 'held' | 'started' | 'skipped' | 'failed';

/** Why a recipient is skipped. */
export type SkipReason =
  | 'opted_out'
  | 'active_conversation'
  | 'past_due'
  | 'bad_phone'
  | 'bad_input'
  | 'bad_date'
  | 'cancelled'
  | 'duplicate';

/** A campaign: `active` fires its recipients, `paused` holds them, `cancelled` never fires again. */
export type CampaignStatus = 'active' | 'paused' | 'cancelled';

/** A campaign's identity: its name is unique per location. */
export interface CampaignRef {
  location: string;
  name: string;
}

/** A campaign's definition, as `replyflow campaigns create` and `POST /admin/campaigns` made it. */
export interface CampaignMeta extends CampaignRef {
  v: 1;
  bot: string;
  status: CampaignStatus;
  /** How its recipients' times are computed: at a time, or relative to a column of each row. */
  schedule: { at: string } | { relativeTo: string; offset: string };
  /** Recipients started per second at most (the location's send rate limit still applies). */
  ratePerSecond: number;
  /** Local hours in which its messages may start (`09:00-19:00`), in each recipient's time zone. */
  window?: string;
  /** The time zone of recipients without one of their own (an IANA name). */
  timeZone: string;
  /** The row column holding a recipient's own time zone, when there is one. */
  timeZoneColumn?: string;
  /** A recipient whose time is past: skipped (`past_due`), or started when at most `ms` late. */
  late: { kind: 'skip' } | { kind: 'sendIfWithin'; ms: number };
  /** The recipient records of one campaign in one partition are spread over this many hashes. */
  chunks: number;
  /** The latest import's number: a recipient no import of it named since is cancelled. */
  generation: number;
  createdAt: number;
  updatedAt: number;
}

/** A recipient as stored: its state and what its start needs. */
export interface RecipientRecord {
  state: RecipientState;
  /** Set for `skipped` and `failed`. */
  reason?: string;
  /** When it starts (`scheduled`) or may start again (`held`), ms. */
  due?: number;
  /** The bot's input for its conversation (the row's columns, checked by the bot's schema). */
  input?: unknown;
  /** The line of the file it came from. */
  line?: number;
  /** Its own time zone, when the file gave one. */
  timeZone?: string;
  /** Its phone, when its row key is not the phone (a start scheduled by the API, keyed by its key). */
  phone?: string;
  /** Its bot, when it is not the campaign's (the API's scheduled starts each name theirs). */
  bot?: string;
  /** Its own delivery window (`09:00-19:00`), when it is not the campaign's. */
  window?: string;
  /**
   * What an API start was asked (a hash of its bot, input, time and window): a retry of the
   * same request is told from a new one whatever became of the start, and a new one with the
   * same time and input (another bot) is still a change.
   */
  request?: string;
  /**
   * When an API start's record was made (kept through its reschedules): its start ids carry it,
   * so a key asked again once its record was pruned never reuses an id (an event id, and the
   * message ids made from it, are remembered longer than the record).
   */
  since?: number;
  /** The import that last named it. */
  generation: number;
  /** Bumped by every reschedule: its start event's id carries it, so each schedule starts once. */
  revision: number;
}

/**
 * One row of an import: its key (the normalised phone; `#<line>` for a row without a usable
 * phone or a duplicate one; for an API start its key, with `record.phone`) and what the import
 * made of it. It is kept in the partition of its phone.
 */
export interface RecipientRow {
  row: string;
  record: Omit<RecipientRecord, 'generation' | 'revision'>;
}

/** A recipient as read back: its campaign, its row key and its record. */
export interface RecipientEntry {
  row: string;
  record: RecipientRecord;
}

/** A chunk of one campaign's recipients in one partition: what the runner claims and fires. */
export interface CampaignChunk extends CampaignRef {
  partition: number;
  chunk: number;
}

/**
 * What the runner decided for a due recipient, applied by `fireRecipients` only when the
 * recipient is still as the runner read it (`revision`, and `scheduled` or `held`).
 * - `start`: push `event` (a start) into the phone's mailbox, unless the phone opted out;
 * - `hold`: wait until `until` (the window or the quiet hours open then);
 * - `skip`: never start, for `reason`.
 */
export type FiringDecision =
  | { row: string; revision: number; action: 'start'; phone: ConversationKey; event: string }
  | { row: string; revision: number; action: 'hold'; until: number }
  | { row: string; revision: number; action: 'skip'; reason: SkipReason };

/** Per decision, what came of it (`stale`: the recipient had changed; nothing was done). */
export type FiringOutcome = 'started' | 'held' | 'skipped' | 'opted_out' | 'stale';

/** A row is a phone (digits) or `#<line>` (a row that names no usable, distinct phone). */
export const isPhoneRow = (row: string) => /^\d+$/.test(row);

/** The phone a recipient starts a conversation with: its own, or its row key; none for a bad row. */
export function phoneOf(entry: { row: string; record: Pick<RecipientRecord, 'phone'> }) {
  return entry.record.phone ?? (isPhoneRow(entry.row) ? entry.row : undefined);
}

/** The counter field of a state (`scheduled`, `skipped:opted_out`). */
export function stateField(state: RecipientState, reason?: string): string {
  return state === 'skipped' || state === 'failed' ? `${state}:${reason ?? 'unknown'}` : state;
}
