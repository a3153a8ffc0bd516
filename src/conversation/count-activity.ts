import {
  activeCounters,
  allStates,
  dayCounters,
  dayCountersTtlMs,
  dayOf,
  totalCounters,
} from '../stats/counter-names.ts';
import type { ConversationRecord, MailboxEvent, MessageRecord } from '../store/records.ts';
import type { CounterChange, StepCommit } from '../store/store.ts';
import { endStage } from './campaign-funnel.ts';
import { statePath } from './state-path.ts';

/** The transitions' name of a run's first state: `'(start)>q1'`. */
export const startState = '(start)';

/**
 * What a step changes of its bots' activity counters (`src/stats/counter-names.ts`), in the same
 * commit, so each figure moves once per step however often the step is retried:
 * - the gauge of active conversations per state path (and its ancestors, and `*`): −1 where
 *   the conversation was, +1 where it is, for the bot of each run;
 * - today's and the total tallies: `started` for a new run; `end:<stage>` for a run that ended
 *   (the one before, replaced or ended in this step, and a new one that ended at once);
 *   `t:<from>><to>` when a run's leaf states changed (from `(start)` for a new run);
 *   `x:<state>:<stage>` where a run ended other than completed (the state before its last step); `delivered` and `failed` for a
 *   delivery report (the store pushes a report only when its message's status moves on, and a
 *   final one once).
 */
export function countActivity(
  event: MailboxEvent,
  before: ConversationRecord | null,
  commit: StepCommit,
  message: Pick<MessageRecord, 'botId'> | null,
  now: number,
): void {
  const after = commit.record ?? before;
  const changes = new Map<string, CounterChange>();
  const change = (name: string, field: string, by: number, ttlMs?: number) => {
    const key = `${name}\n${field}`;
    const current = changes.get(key);
    if (current) current.by += by;
    else changes.set(key, { name, field, by, ...(ttlMs !== undefined && { ttlMs }) });
  };
  const tally = (record: Pick<ConversationRecord, 'location' | 'botId'>, field: string) => {
    change(dayCounters(record.location, record.botId, dayOf(now)), field, 1, dayCountersTtlMs);
    change(totalCounters(record.location, record.botId), field, 1);
  };

  const wasActive = before?.status === 'active' ? before : null;
  const isActive = after?.status === 'active' ? after : null;
  if (wasActive) {
    for (const path of gaugePaths(wasActive)) {
      change(activeCounters(wasActive.location, wasActive.botId), path, -1, 0);
    }
  }
  if (isActive) {
    for (const path of gaugePaths(isActive)) {
      change(activeCounters(isActive.location, isActive.botId), path, 1, 0);
    }
  }

  const newRun = after && after.runId !== before?.runId ? after : null;
  if (wasActive && (newRun || after?.status !== 'active')) {
    // The run that was active ended here: replaced (its result is in the commit) or finished.
    const code = newRun
      ? commit.results?.find((r) => r.runId === wasActive.runId)?.endCode
      : after?.endedReason;
    const stage = newRun && code === undefined ? 'interrupted' : endStage(code);
    tally(wasActive, `end:${stage}`);
    // Where it dropped off: the state it was in before this step (an expiry goes on to a final
    // state; the drop-off is where the person stopped answering).
    if (stage !== 'completed') tally(wasActive, `x:${leaves(wasActive)}:${stage}`);
  }
  if (newRun) {
    tally(newRun, 'started');
    tally(newRun, `t:${startState}>${leaves(newRun)}`);
    if (newRun.status !== 'active') {
      const stage = endStage(newRun.endedReason);
      tally(newRun, `end:${stage}`);
      if (stage !== 'completed') tally(newRun, `x:${leaves(newRun)}:${stage}`);
    }
  } else if (wasActive && after) {
    const from = leaves(wasActive);
    const to = leaves(after);
    if (from !== to) tally(wasActive, `t:${from}>${to}`);
  }

  if (event.kind === 'status' && (event.status === 'delivered' || event.status === 'errored')) {
    const botId = message?.botId ?? after?.botId;
    if (botId) {
      tally(
        { location: event.location, botId },
        event.status === 'delivered' ? 'delivered' : 'failed',
      );
    }
  }

  const moved = [...changes.values()].filter((c) => c.by !== 0);
  if (moved.length > 0) commit.counters = [...(commit.counters ?? []), ...moved];
}

/** The leaf state paths of a run, `', '`-joined for parallel regions (`statePath`). */
export function leaves(record: Pick<ConversationRecord, 'snapshot'>): string {
  const value = (record.snapshot as { value?: unknown } | null)?.value;
  return value === undefined ? '?' : statePath(value);
}

/** Where a run counts in the gauge: each leaf path, each of its ancestors, and `*`. */
export function gaugePaths(record: Pick<ConversationRecord, 'snapshot'>): string[] {
  const paths = new Set<string>([allStates]);
  for (const leaf of leaves(record).split(', ')) {
    const parts = leaf.split('.');
    for (let i = 1; i <= parts.length; i++) paths.add(parts.slice(0, i).join('.'));
  }
  return [...paths];
}
