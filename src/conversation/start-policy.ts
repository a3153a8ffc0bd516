import type { BotRegistry } from '../bot/bot-registry.ts';
import type { ConversationRecord, MailboxEvent, StartEvent } from '../store/records.ts';
import type { StepCommit } from '../store/store.ts';
import type { StepOutcome } from './run-step.ts';

/** Starts a conversation keeps waiting for it to end (`startPolicy: 'queue'`); more are dropped. */
export const maxQueuedStarts = 10;

type Step = { commit: StepCommit; outcome: StepOutcome };

/**
 * A start with `policy: 'replace'` that meets an active conversation ends it first (reason
 * `REPLACED`): returns the ending record, or undefined when the policy does not apply (no such
 * policy, or the new bot is not loaded, in which case the active one is left alone).
 */
export function replacedBy(
  event: MailboxEvent,
  active: ConversationRecord | null,
  registry: BotRegistry,
  now: number,
): ConversationRecord | undefined {
  if (!active || event.kind !== 'start' || event.policy !== 'replace') return undefined;
  if (!registry.bots.has(event.botId)) return undefined;
  return {
    ...active,
    status: 'done',
    endedReason: 'REPLACED',
    seq: active.seq + 1,
    updatedAt: now,
    timers: {},
  };
}

/**
 * A start with `policy: 'queue'` that meets an active conversation waits in its record until it
 * ends (`startQueued` then runs it in the step that ended it): returns that step, or undefined
 * when the policy does not apply.
 */
export function queueStart(
  event: MailboxEvent,
  active: ConversationRecord | null,
  commit: StepCommit,
  now: number,
): Step | undefined {
  if (!active || event.kind !== 'start' || event.policy !== 'queue') return undefined;
  const queued = active.queued ?? [];
  const full = queued.length >= maxQueuedStarts;
  commit.record = {
    ...active,
    seq: active.seq + 1,
    updatedAt: now,
    queued: full ? queued : [...queued, event],
  };
  const reason = full
    ? `${maxQueuedStarts} starts already wait for the conversation with '${active.botId}'`
    : `queued until the conversation with '${active.botId}' ends`;
  return { commit, outcome: { route: 'drop', reason, botId: active.botId, ignoredActions: [] } };
}

/**
 * When a step ends a run that has starts queued behind it, the first of them runs in the same
 * commit (its messages follow the ended run's), and the rest wait behind the new run; a queued
 * start that does not start (its bot is gone) gives way to the next.
 */
export function startQueued(
  step: Step,
  run: (event: StartEvent, record: ConversationRecord) => Step,
): Step {
  let merged = step;
  for (;;) {
    const ended = merged.commit.record;
    const [next, ...rest] = ended?.status !== 'active' ? (ended?.queued ?? []) : [];
    if (!ended || !next) return merged;
    const closed: ConversationRecord = { ...ended, queued: undefined };
    const following = run(next, closed);
    const record = following.commit.record ?? closed;
    merged = {
      outcome: merged.outcome,
      commit: {
        ...merged.commit,
        // One commit: the head event's id and seq, the record one seq further.
        record: {
          ...record,
          seq: merged.commit.expectedSeq + 1,
          queued: rest.length > 0 ? rest : undefined,
        },
        outbound: [...merged.commit.outbound, ...following.commit.outbound],
        // A queued start that starts is refused with the rest when the phone opted out.
        ...(following.commit.unlessSuppressed && { unlessSuppressed: true }),
        results: [...(merged.commit.results ?? []), ...(following.commit.results ?? [])],
        ...((merged.commit.events || following.commit.events) && {
          events: [...(merged.commit.events ?? []), ...(following.commit.events ?? [])],
        }),
        timers: {
          set: [...(merged.commit.timers?.set ?? []), ...(following.commit.timers?.set ?? [])],
          cancel: [
            ...(merged.commit.timers?.cancel ?? []),
            ...(following.commit.timers?.cancel ?? []),
          ],
        },
      },
    };
  }
}
