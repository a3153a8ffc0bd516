import type { OutboundEvent } from '../events/outbound-event.ts';
import { maskPhone } from '../observability/mask-phone.ts';
import type { ConversationRecord, MailboxEvent } from '../store/records.ts';
import type { StepCommit } from '../store/store.ts';
import { complianceBotId } from './compliance-step.ts';

type RunFields = Pick<
  ConversationRecord,
  'location' | 'phone' | 'botId' | 'botVersion' | 'runId' | 'result'
>;

/** An outbound event of `run`; its id is given by `collectEvents`, once the step's are known. */
export function outboundEvent(
  run: RunFields,
  type: string,
  payload: Record<string, unknown>,
  now: number,
): OutboundEvent {
  return {
    id: '',
    type,
    timestamp: new Date(now).toISOString(),
    data: {
      location: run.location,
      bot: run.botId,
      botVersion: run.botVersion,
      runId: run.runId,
      phone: run.phone,
      maskedPhone: maskPhone(run.phone),
      payload,
    },
  };
}

/**
 * The outbound events of a step (issue 24), put in its commit as `countActivity` puts its
 * counters, by comparing the record before and after: `conversation.ended` for a run that ended
 * (replaced, finished, opted out), `conversation.started` for a new run, `result.recorded` for
 * result fields the step changed, `optout` / `optin` for the suppression the step adds or
 * removes, around the bot's own (`notify`), which the step left in `commit.events`. Ids are
 * `evt_<event id>_<index>`, so a retried step makes the same ones.
 */
export function collectEvents(
  event: MailboxEvent,
  before: ConversationRecord | null,
  commit: StepCommit,
  now: number,
): void {
  const after = commit.record ?? before;
  const events: OutboundEvent[] = [];
  const wasActive = before?.status === 'active' ? before : null;
  const newRun = !!after && after.runId !== before?.runId && after.botId !== complianceBotId;
  const ended = (run: RunFields, endCode: string | undefined, result: RunFields['result']) =>
    outboundEvent(run, 'conversation.ended', { endCode, result: result ?? {} }, now);
  if (wasActive && newRun) {
    // Replaced (or ended and followed by a queued start): its result is in the commit.
    const result = commit.results?.find((r) => r.runId === wasActive.runId);
    events.push(ended(wasActive, result?.endCode ?? 'interrupted', result?.fields));
  }
  if (after && newRun) events.push(outboundEvent(after, 'conversation.started', {}, now));
  events.push(...(commit.events ?? []));
  if (after && after.botId !== complianceBotId) {
    const earlier = after.runId === before?.runId ? (before?.result ?? {}) : {};
    const changed = Object.entries(after.result ?? {}).filter(
      ([key, value]) => JSON.stringify(earlier[key]) !== JSON.stringify(value),
    );
    if (changed.length > 0) {
      events.push(outboundEvent(after, 'result.recorded', Object.fromEntries(changed), now));
    }
    if (after.status !== 'active' && (newRun || wasActive?.runId === after.runId)) {
      events.push(ended(after, after.endedReason ?? after.status, after.result));
    }
  }
  if (commit.suppression && after) {
    const payload = commit.suppressionReason ? { keyword: commit.suppressionReason } : {};
    events.push(
      outboundEvent(after, commit.suppression === 'add' ? 'optout' : 'optin', payload, now),
    );
  }
  events.forEach((e, index) => {
    e.id = `evt_${event.id}_${index}`;
  });
  if (events.length > 0) commit.events = events;
  else delete commit.events;
}
