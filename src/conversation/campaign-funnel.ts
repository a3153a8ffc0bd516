import type { EndStage } from '../stats/stats-types.ts';
import type { ConversationRecord, MailboxEvent, MessageRecord } from '../store/records.ts';
import type { CounterChange, StepCommit } from '../store/store.ts';

/** The counters name of a campaign's funnel (`readCounters`). */
export const funnelCounters = (location: string, campaign: string) =>
  `funnel:${location}:${campaign}`;

/**
 * The counters name of a campaign's funnel per UTC hour: field `<stage>@<yyyy-mm-ddThh>`, and
 * `started@<hour>` for each run it started (the dashboard's progress over time).
 */
export const funnelHourCounters = (location: string, campaign: string) =>
  `funnelh:${location}:${campaign}`;

/** The UTC hour of a time, `yyyy-mm-ddThh`: the funnel's hourly field suffix. */
export const hourOf = (ms: number) => new Date(ms).toISOString().slice(0, 13);

/** The funnel's stage of an end code: how a campaign conversation ended. */
export function endStage(code: string | undefined): EndStage {
  switch (code) {
    case 'opted_out':
      return 'opted_out';
    case 'BOT_THREW':
      return 'errored';
    case 'expired':
      return 'expired';
    case 'REPLACED':
    case 'version_changed':
    case 'bot_removed':
      return 'interrupted';
    default:
      return 'completed';
  }
}

/**
 * What a step adds to its campaign's funnel, counted once per conversation and stage, in the
 * same commit: `sent` (a message of the run reported sent or delivered), `delivered`,
 * `answered` (the person replied to the run), and one end stage (`completed`, `opted_out`,
 * `errored`, `expired`, `interrupted`). The stages seen are kept in the record
 * (`campaign.seen`), so a redelivered status or a second reply counts nothing. A status that
 * comes after its run ended still counts: the ended record is written again, with the stage.
 * Each stage is also counted in the hour of `now` (`funnelHourCounters`), with `started` for the
 * step that began the run: a new run is committed once, so it needs no letter in `seen`.
 */
export function countFunnel(
  event: MailboxEvent,
  before: ConversationRecord | null,
  commit: StepCommit,
  message: Pick<MessageRecord, 'runId'> | null,
  now: number,
): void {
  const after = commit.record ?? before;
  const campaign = after?.campaign;
  if (!after || !campaign) return;
  const seen = new Set(campaign.seen ?? '');
  const stages: string[] = [];
  const see = (letter: string, stage: string) => {
    if (seen.has(letter)) return;
    seen.add(letter);
    stages.push(stage);
  };
  const sameRun = before?.runId === after.runId;
  // A service's status names its run through the message it is about (a send failure, in itself).
  if (event.kind === 'status' && (message?.runId ?? event.runId) === after.runId) {
    if (event.status === 'sent' || event.status === 'delivered') see('s', 'sent');
    if (event.status === 'delivered') see('d', 'delivered');
  }
  if (event.kind === 'reply' && sameRun && before?.status === 'active') see('a', 'answered');
  if (after.status !== 'active') see('e', endStage(after.endedReason));
  const started = !sameRun;
  if (stages.length === 0 && !started) return;
  const name = funnelCounters(after.location, campaign.name);
  const hourly = funnelHourCounters(after.location, campaign.name);
  const hour = hourOf(now);
  const changes: CounterChange[] = [
    ...stages.map((field) => ({ name, field, by: 1 })),
    ...[...(started ? ['started'] : []), ...stages].map((stage) => ({
      name: hourly,
      field: `${stage}@${hour}`,
      by: 1,
    })),
  ];
  commit.counters = [...(commit.counters ?? []), ...changes];
  if (stages.length === 0) return;
  const record = commit.record ?? { ...after, seq: commit.expectedSeq + 1 };
  commit.record = { ...record, campaign: { ...campaign, seen: [...seen].join('') } };
}
