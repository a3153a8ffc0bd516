import type {
  CampaignMeta,
  CampaignRef,
  FiringDecision,
  RecipientEntry,
} from '../store/campaign-records.ts';
import { phoneOf } from '../store/campaign-records.ts';
import { storableJson } from '../store/storable-json.ts';
import { nextInWindow } from './delivery-window.ts';

/**
 * How late a recipient may still start when its campaign says `skip` for a time already past:
 * the runner is normally within a second; past this (it was stopped for a while) the start is
 * skipped as `past_due`, never sent hours late. `sendIfWithin` sets its own.
 */
export const defaultLatenessMs = 15 * 60_000;

/** A recipient due now and what to do with it, before the start event is made. */
export type Decision =
  | { entry: RecipientEntry; action: 'start' }
  | { entry: RecipientEntry; action: 'hold'; until: number }
  | { entry: RecipientEntry; action: 'skip'; reason: 'past_due' };

/**
 * The runner's call for each recipient of a chunk that is due by `now` (scheduled or held):
 * skipped when it is later than the campaign allows, held when the campaign's delivery window or
 * the location's quiet hours are shut in its time zone (until they open), started otherwise.
 * Pure: the store applies each decision only if the recipient is still as read.
 */
export function decideFiring(
  meta: CampaignMeta,
  entries: readonly RecipientEntry[],
  now: number,
  quietUntil?: (now: number) => number | undefined,
): Decision[] {
  const lateness = meta.late.kind === 'sendIfWithin' ? meta.late.ms : defaultLatenessMs;
  const decisions: Decision[] = [];
  for (const entry of entries) {
    const { record } = entry;
    if (record.state !== 'scheduled' && record.state !== 'held') continue;
    if (record.due === undefined || record.due > now || phoneOf(entry) === undefined) continue;
    if (now - record.due > lateness) {
      decisions.push({ entry, action: 'skip', reason: 'past_due' });
      continue;
    }
    const timeZone = record.timeZone ?? meta.timeZone;
    const window = record.window ?? meta.window;
    const open = window ? nextInWindow(now, window, timeZone) : now;
    const quiet = quietUntil?.(open);
    const until = quiet !== undefined && quiet > open ? quiet : open;
    if (until > now) decisions.push({ entry, action: 'hold', until });
    else decisions.push({ entry, action: 'start' });
  }
  return decisions.sort((a, b) => (a.entry.record.due ?? 0) - (b.entry.record.due ?? 0));
}

/**
 * The start id of a recipient at a revision (its start event's is this, then `:0`); an API
 * start's row carries the time its record was made (`since`), unique across prunes.
 */
export const recipientStartId = (
  ref: CampaignRef,
  entry: { row: string; record: Pick<RecipientEntry['record'], 'revision' | 'since'> },
) => {
  const { row, record } = entry;
  const made = record.since === undefined ? '' : `.${record.since.toString(36)}`;
  return `campaign:${ref.location}:${ref.name}:${row}${made}:${record.revision}`;
};

/** The start event of a recipient that fires: its id names the campaign, the row and the revision. */
export function startEventOf(
  meta: CampaignMeta,
  entry: RecipientEntry,
  chunk: number,
  now: number,
  policy: 'replace' | 'queue' | undefined,
): string {
  const id = `${recipientStartId(meta, entry)}:0`;
  return storableJson({
    v: 1,
    id,
    kind: 'start',
    location: meta.location,
    phone: phoneOf(entry),
    receivedAt: now,
    botId: entry.record.bot ?? meta.bot,
    input: entry.record.input ?? {},
    ...(policy && { policy }),
    campaign: { name: meta.name, row: entry.row, chunk, revision: entry.record.revision },
  });
}

/** A decision as the store takes it. */
export function toFiringDecision(
  decision: Decision,
  meta: CampaignMeta,
  chunk: number,
  now: number,
  policy: 'replace' | 'queue' | undefined,
): FiringDecision {
  const { row, record } = decision.entry;
  switch (decision.action) {
    case 'start':
      return {
        row,
        revision: record.revision,
        action: 'start',
        phone: { location: meta.location, phone: phoneOf(decision.entry)! },
        event: startEventOf(meta, decision.entry, chunk, now, policy),
      };
    case 'hold':
      return { row, revision: record.revision, action: 'hold', until: decision.until };
    default:
      return { row, revision: record.revision, action: 'skip', reason: decision.reason };
  }
}
