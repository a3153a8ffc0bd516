import { statusRecordOf } from '../message-status.ts';
import { type ReplyEvent, type StatusEvent, statusRank } from '../records.ts';
import { storableJson } from '../storable-json.ts';
import type { IngestItem, StepCommit } from '../store.ts';
import { storeLimits } from '../store-limits.ts';
import { recordState } from '../transcript.ts';
import {
  conversationBody,
  joinValueLines,
  type StoredTimer,
  storedTimer,
  valueLines,
} from './conversation-value.ts';
import { messageBody } from './message-value.ts';
import { transcriptLineWith } from './transcript-line-with.ts';
import { entryPattern, plainId } from './value-after-sent.ts';
import { newWriteMark } from './write-mark.ts';

/** A conversation's value after a direct step, built here rather than in Lua (issue 26). */
export interface StepValue {
  value: string;
  /** Transcript entries past the value's inline ones, for the conversation's transcript list. */
  spilled: string[];
  /** The earliest timer this step set earlier than the one it replaced (the zset moves, `ZADD LT`). */
  armAt: number | undefined;
  /** The step left no timer where the value had some: the partition's timers entry goes. */
  timersGone: boolean;
  /** The value's TTL (ms) once written, 0 for none: an active conversation is kept. */
  ttlMs: number;
}

/**
 * What `commit-step-17.lua` writes into the conversation's value for the direct step of a
 * reply, built from the value it was computed on (`stored`, '' for none): the new record and
 * seq, the event appended to the applied log, the step's timers merged into the pending ones,
 * and the reply's transcript entry; the messages line as it was. Answers `'duplicate'` when the
 * applied log already has the event, `'stale'` when the value's seq is not the step's
 * `expectedSeq`, and undefined for what the script alone writes (a step with no record, a
 * value in another layout): commit it there.
 *
 * The direct step of a status (`status`, its record fields) writes what `ingest-9.lua` and
 * then `commit-step-17.lua` write for it: its message's entry in the messages line moved to the
 * status (`messagesLineMoved`), the record, seq and timers as for a reply; nothing logged
 * (a status's rank is its dedupe) and no transcript entry. Undefined unless the line holds
 * that sms, recorded as sent, at a lower rank: `ingest` takes such a status.
 */
export function valueAfterStep(
  stored: string,
  event: ReplyEvent | StatusEvent,
  step: StepCommit,
  now: number,
  retentionMs: number,
  status?: IngestItem['status'],
): StepValue | 'duplicate' | 'stale' | undefined {
  const record = step.record;
  if (!record) return undefined;
  let lines: ReturnType<typeof valueLines>;
  try {
    lines = stored === '' ? null : valueLines(stored);
  } catch {
    // Not this release's layout: the merging script reads what it can and says what it cannot.
    return undefined;
  }
  const before = lines ?? {
    seq: 0,
    applied: '',
    timers: '',
    messages: '',
    record: '',
    transcript: '',
  };
  let applied = before.applied;
  let messages = before.messages;
  if (event.kind === 'status') {
    const moved = status && messagesLineMoved(before.messages, event, status);
    if (!moved) return undefined;
    messages = moved;
  } else {
    const logged = appliedWith(before.applied, event.id, now);
    if (logged === undefined) return 'duplicate';
    applied = logged;
  }
  if (before.seq !== step.expectedSeq) return 'stale';
  const timers = timersAfter(before, record.runId, step);
  if (!timers) return undefined;
  const transcript =
    event.kind === 'reply'
      ? transcriptLineWith(
          before.transcript,
          `i[${event.receivedAt.toFixed(0)},${storableJson(event.body)},${storableJson(recordState(record))}]`,
        )
      : { line: before.transcript, spilled: [] };
  const value = joinValueLines({
    mark: newWriteMark(),
    seq: record.seq,
    applied,
    timers: timers.line,
    messages,
    record: conversationBody(record),
    transcript: transcript.line,
  });
  return {
    value,
    spilled: transcript.spilled,
    armAt: timers.armAt,
    timersGone: timers.gone,
    // As the script: an ended conversation is kept for the retention, an opted-out phone's
    // record until it opts in, an active one until it ends.
    ttlMs: record.status !== 'active' && !record.suppressed ? retentionMs : 0,
  };
}

/**
 * The messages line with the entry of the status's sms moved to it, as `ingest-9.lua` moves
 * it: its rank the status's, the status's record fields (`statusRecordOf`) merged over its
 * record but for `v` and the location. Undefined unless the line holds the sms (a plain id),
 * recorded as sent, at a rank below the status's.
 */
function messagesLineMoved(
  line: string,
  event: StatusEvent,
  status: NonNullable<IngestItem['status']>,
): string | undefined {
  const { smsId } = event;
  const from = plainId(smsId) ? line.indexOf(`["${smsId}",`) : -1;
  if (from < 0) return undefined;
  // `],["` only ever stands between two entries: no JSON string holds an unescaped quote.
  const boundary = line.indexOf('],["', from);
  const text = line.slice(from, boundary < 0 ? line.length - 1 : boundary + 1);
  const parts = entryPattern.exec(text);
  const rank = statusRank[status.status];
  if (parts?.[3] !== '1' || Number(parts[2]) >= rank) return undefined;
  const update = JSON.parse(messageBody(statusRecordOf({ event, status }))) as Record<
    string,
    unknown
  >;
  const { v: _v, l: _l, ...fields } = update;
  const record = { ...(JSON.parse(parts[4]!) as Record<string, unknown>), ...fields };
  const entry = `["${smsId}",${rank},1,${storableJson(record)}]`;
  return `${line.slice(0, from)}${entry}${line.slice(from + text.length)}`;
}

/**
 * The applied log with `id` appended, bounded by count and time (`[<last commit>, …ids]`), or
 * undefined when the log, still within its window, has it already.
 */
function appliedWith(line: string, id: string, now: number): string | undefined {
  let log = line === '' ? undefined : (JSON.parse(line) as [number, ...string[]]);
  if (log && now - log[0] <= storeLimits.appliedWindowMs && log.includes(id, 1)) return undefined;
  if (!log || now - log[0] > storeLimits.appliedWindowMs) log = [now];
  const ids = [...log.slice(1), id].slice(-storeLimits.appliedLogCap) as string[];
  return JSON.stringify([now, ...ids]);
}

/**
 * The pending timers after the step, as the script merges them: entries of another run keep
 * their run id, the step's cancels go, its timers replace those of the same send id and run.
 */
function timersAfter(
  before: { timers: string; record: string },
  runId: string,
  step: StepCommit,
): { line: string; armAt: number | undefined; gone: boolean } | undefined {
  const set = step.timers?.set ?? [];
  const cancel = step.timers?.cancel ?? [];
  const had = before.timers !== '';
  if (!had && set.length === 0) return { line: '', armAt: undefined, gone: false };
  const storedRunId = /^{"v":1,"runId":"([^"]*)"/.exec(before.record)?.[1];
  if (before.record !== '' && storedRunId === undefined) return undefined;
  let pending = had ? (JSON.parse(before.timers) as StoredTimer[]) : [];
  let changed = false;
  if (had && storedRunId !== runId) {
    // A new run's record: the earlier run's timers stay its own.
    if (storedRunId !== undefined) {
      pending = pending.map((entry) =>
        entry.length === 4 ? entry : [entry[0], entry[1], entry[2] ?? false, storedRunId],
      );
    }
    changed = true;
  }
  const runOf = (entry: StoredTimer) => (entry.length === 4 ? entry[3] : runId);
  if (cancel.length > 0) {
    const cancelled = new Set(cancel);
    const kept = pending.filter((entry) => !cancelled.has(`${runOf(entry)}:${entry[0]}`));
    if (kept.length !== pending.length) changed = true;
    pending = kept;
  }
  let armAt: number | undefined;
  for (const timer of set) {
    const entry = storedTimer(timer, runId);
    const replaced = pending.findIndex((old) => old[0] === entry[0] && runOf(old) === runOf(entry));
    if (replaced === -1 || entry[1] < pending[replaced]![1]) {
      armAt = Math.min(armAt ?? entry[1], entry[1]);
    }
    if (replaced === -1) pending.push(entry);
    else pending[replaced] = entry;
    changed = true;
  }
  if (!changed) return { line: before.timers, armAt, gone: false };
  return {
    line: pending.length === 0 ? '' : JSON.stringify(pending),
    armAt: pending.length > 0 ? armAt : undefined,
    gone: pending.length === 0 && had,
  };
}
