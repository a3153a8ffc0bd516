import type { ConversationRecord, TimerRecord } from '../store/records.ts';
import type { TimerOp } from './collect-effects.ts';

/** The send id of a conversation's expiry timer; its event is `conversation.expire`. */
export const expireSendId = 'replyflow.expire';

export interface TimerPlan {
  /** The run's live timers after this step (goes into the record). */
  live: Record<string, number>;
  set: TimerRecord[];
  cancel: string[];
}

export interface PlanTimersInput {
  run: ConversationRecord;
  ops: readonly TimerOp[];
  now: number;
  /** The run ended in this step: every live timer goes. */
  finished: boolean;
  /** Inactivity before the conversation expires, counted from now; undefined leaves the expiry as it is. */
  expiresAfterMs: number | undefined;
}

/**
 * Applies a step's timer operations, in order, to the run's live timers, and says what the
 * commit must write and delete. Timer ids are `${runId}:${sendId}`, so setting a timer again
 * (re-entering a state) replaces it, and a later run never sees an earlier run's timers.
 */
export function planTimers({
  run,
  ops,
  now,
  finished,
  expiresAfterMs,
}: PlanTimersInput): TimerPlan {
  const live = { ...run.timers };
  const set = new Map<string, TimerRecord>();
  const cancel = new Set<string>();
  const record = (sendId: string, dueAt: number, event: { type: string }): TimerRecord => ({
    v: 1,
    id: `${run.runId}:${sendId}`,
    location: run.location,
    phone: run.phone,
    runId: run.runId,
    sendId,
    dueAt,
    event,
  });
  for (const op of ops) {
    const id = `${run.runId}:${op.sendId}`;
    if (op.op === 'cancel') {
      delete live[id];
      set.delete(id);
      cancel.add(id);
    } else {
      const timer = record(op.sendId, now + op.delay, op.event);
      live[id] = timer.dueAt;
      set.set(id, timer);
      cancel.delete(id);
    }
  }
  if (finished) {
    for (const id of Object.keys(live)) cancel.add(id);
    return { live: {}, set: [], cancel: [...cancel] };
  }
  if (expiresAfterMs !== undefined) {
    const expiry = record(expireSendId, now + expiresAfterMs, { type: 'conversation.expire' });
    live[expiry.id] = expiry.dueAt;
    set.set(expiry.id, expiry);
    cancel.delete(expiry.id);
  }
  return { live, set: [...set.values()], cancel: [...cancel] };
}
