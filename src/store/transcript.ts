import type {
  ConversationKey,
  ConversationRecord,
  ConversationResult,
  ConversationStatus,
  MessageRecord,
  TimerRecord,
} from './records.ts';

/**
 * One message of a conversation's transcript as the store keeps it: written by the step's
 * commit (an inbound reply, with the state the step left) and by `recordSent` (an outbound
 * SMS, with its sms id). What the message record says of an sms (status, parts, price) is not
 * copied: `buildTranscript` joins it when the transcript is read.
 */
export interface StoredTranscriptEntry {
  direction: 'in' | 'out';
  /** When replyflow took the reply in, or recorded the SMS as sent (ms). */
  at: number;
  body: string;
  /** The outbound SMS's id at the service: its message record's key. */
  smsId?: string;
  /** The state path after the step an inbound reply ran (`transcriptState`). */
  stateAfter?: string;
}

/** One message of a transcript, its message record's facts joined in. */
export interface TranscriptEntry extends StoredTranscriptEntry {
  status?: MessageRecord['status'];
  /** The status's reason (`statusReason`), as the service gave it. */
  reason?: string;
  parts?: number;
  encoding?: MessageRecord['encoding'];
  price?: number;
}

/** A timer the conversation waits for. */
export interface TranscriptTimer {
  id: string;
  /** The event it becomes (`conversation.expire`, or the machine's delayed event). */
  event: string;
  dueAt: number;
}

/** What a conversation's page shows of its current (or last) run. */
export interface TranscriptConversation {
  runId: string;
  bot: string;
  version: string;
  status: ConversationStatus;
  /** The state path now (`transcriptState` of the snapshot's value). */
  state: string;
  startedAt: number;
  updatedAt: number;
  timers: TranscriptTimer[];
  /** What the run recorded so far (`record({...})`). */
  result: Record<string, unknown>;
  /** How it ended: the result's end code, else the record's `endedReason`. */
  endCode?: string;
  endedAt?: number;
}

/**
 * A conversation's transcript: its last `storeLimits.transcriptEntries` messages, oldest
 * first, in and out, and its run. The transcript belongs to the (location, phone): it goes on
 * across the phone's successive runs, and is kept as long as the conversation's record.
 */
export interface Transcript extends ConversationKey {
  v: 1;
  /** Null when the phone has messages but no conversation record. */
  conversation: TranscriptConversation | null;
  entries: TranscriptEntry[];
}

/** What a driver read, in one atomic call, to build a transcript. */
export interface TranscriptParts {
  key: ConversationKey;
  record: ConversationRecord | null;
  timers: readonly TimerRecord[];
  entries: readonly StoredTranscriptEntry[];
  /** The message records of the outbound entries that still have one, by sms id. */
  messages: ReadonlyMap<string, MessageRecord>;
  /** The record's run's result, when it has one. */
  result: ConversationResult | null;
}

/**
 * The transcript from what the store keeps: entries by time, each outbound one joined with its
 * message record, the run's timers soonest first. Both drivers answer `readTranscript` with it, so
 * they answer the same.
 */
export function buildTranscript(parts: TranscriptParts): Transcript | null {
  const { key, record, timers, entries, messages, result } = parts;
  if (!record && entries.length === 0) return null;
  return {
    v: 1,
    location: key.location,
    phone: key.phone,
    conversation: record && conversationOf(record, timers, result),
    // By time, stable: a reply taken in before the answer it crossed was recorded sent is
    // written after it (at its step's commit), but came first.
    entries: [...entries]
      .sort((a, b) => a.at - b.at)
      .map((entry) => {
        const message = entry.smsId === undefined ? undefined : messages.get(entry.smsId);
        if (!message) return { ...entry };
        return {
          ...entry,
          status: message.status,
          ...(message.statusReason !== '' && { reason: message.statusReason }),
          ...(message.parts !== undefined && { parts: message.parts }),
          ...(message.encoding !== undefined && { encoding: message.encoding }),
          ...(message.price !== undefined && { price: message.price }),
        };
      }),
  };
}

function conversationOf(
  record: ConversationRecord,
  timers: readonly TimerRecord[],
  result: ConversationResult | null,
): TranscriptConversation {
  const ownResult = result?.runId === record.runId ? result : null;
  const endCode = ownResult?.endCode ?? record.endedReason;
  return {
    runId: record.runId,
    bot: record.botId,
    version: record.botVersion,
    status: record.status,
    state: recordState(record),
    startedAt: record.startedAt,
    updatedAt: record.updatedAt,
    timers: [...timers]
      .filter((timer) => timer.runId === record.runId)
      .sort((a, b) => a.dueAt - b.dueAt)
      .map((timer) => ({ id: timer.id, event: timer.event.type, dueAt: timer.dueAt })),
    result: { ...(ownResult?.fields ?? record.result ?? {}) },
    ...(endCode !== undefined && { endCode }),
    ...(ownResult?.endedAt !== undefined && { endedAt: ownResult.endedAt }),
  };
}

/** The state path of a record's snapshot (`''` for a snapshot with no value). */
export function recordState(record: ConversationRecord): string {
  const snapshot = record.snapshot as { value?: unknown } | null;
  return transcriptState(typeof snapshot === 'object' ? snapshot?.value : undefined);
}

/**
 * A state value as the transcript writes it: the same form as the engine's `statePath`
 * (`src/conversation/state-path.ts`, which the store may not import): `'asking'`, a dotted
 * path for nested states, parallel regions' paths sorted and joined with `', '`.
 */
export function transcriptState(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  if (value === null || typeof value !== 'object') return String(value);
  const paths = Object.entries(value as Record<string, unknown>).flatMap(([key, child]) => {
    const inner = transcriptState(child);
    return inner === '' ? [key] : inner.split(', ').map((path) => `${key}.${path}`);
  });
  return paths.sort().join(', ');
}
