import type { ConversationKey, ConversationRecord, TimerRecord } from '../records.ts';
import { storableJson } from '../storable-json.ts';
import type { StoredTranscriptEntry } from '../transcript.ts';

/**
 * How a conversation is kept on Redis: one plain string, the cheapest encoding for a record of
 * a few hundred bytes (a hash holding it goes past the listpack limit and costs ~40 % more):
 *
 * ```
 * [~<write mark>\n]<seq>\n<applied>\n<timers>\n<messages>\n<record JSON less location, phone and seq>[\n<transcript>]
 * ```
 *
 * - `write mark` (issue 26): a line that a write built in the process (value-after-step.ts,
 *   value-after-sent.ts) puts first, new for each write (`newWriteMark`). Every script that
 *   rewrites the value drops it (`conversationValue` in lib/conversation-parts.lua), so a mark
 *   still in Redis says the value is the one its writer built, byte for byte: the next built
 *   write checks those few bytes (`GETRANGE`) instead of sending and reading the whole value.
 * - `seq`: the fencing version, which the commit script reads without decoding JSON.
 * - `applied`: `[<last commit ms>,"<event id>",…]`, the applied log, bounded by count and time
 *   (`commit-step-17.lua`); empty before the first logged event.
 * - `timers`: the conversation's pending timers (`StoredTimer`), the event left out when it is
 *   the one the send id implies (`conversation.expire` for the expiry, `{type: <send id>}` for
 *   an `after`), the run id when it is the record's. A timer's id is `<run id>:<send id>`.
 *   Written by the commit, emptied by `claim-due-timers-4.lua` as they fire.
 * - `messages`: the records of the conversation's latest messages (`storeLimits.messagesInRecord`),
 *   `[["<sms id>",<rank>,<sent: 1|0>,{record}],…]` oldest first (`MessageEntry`), each record
 *   with `message-value.ts`'s short names less `v` and the location (the conversation's);
 *   older ones go to keys of their own. A record here is also its outbox message's "sent"
 *   guard, and what the statuses and the replies of an idle conversation look up: one key per
 *   conversation, not one more per message. The scripts find an entry, add one and spill the
 *   oldest as text (`lib/messages-line.lua`: a record's fields are scalars, so `],["` is only
 *   ever between two entries), decoding only the record they change.
 * - The record JSON starts `{"v":1,"runId":"…"` so the scripts read the run id off its start.
 * - `transcript` (absent when empty): `#<count of entries>`, then the last
 *   `storeLimits.transcriptEntries` messages, oldest first, each after a tab (JSON escapes every
 *   tab; a line written before the count starts with its first entry):
 *   `i[<at>,"<body>","<state after>"]` for a
 *   reply (written by the commit of its step), `o[<at>,"<sms id>","<body>"]` for an SMS sent
 *   (written by `recordSent`). Its messages' status, parts and price are in their message
 *   records, joined when read (`readTranscript`). The scripts append and cut it as a string;
 *   the worker's reads (claims, commits) leave it out.
 *
 * No line holds a raw newline: JSON escapes them. The record may be empty: a value holding only
 * messages (sent to a phone with no conversation) or timers.
 */
export interface ConversationValue {
  seq: number;
  applied: string[];
  /** The pending timers, soonest first. */
  timers: TimerRecord[];
  /** The latest messages' stored records (`message-value.ts`) by sms id, oldest first. */
  messages: Array<[smsId: string, stored: string]>;
  /** Null when the value holds only messages or timers (no conversation record yet). */
  record: ConversationRecord | null;
  /** The transcript's entries, oldest first. */
  transcript: StoredTranscriptEntry[];
}

/** A messages line entry: sms id, status rank, sent (1 or 0), the record's stored fields. */
type MessageEntry = [smsId: string, rank: number, sent: number, record: Record<string, unknown>];

/** The send id of a conversation's expiry timer (`plan-timers.ts` owns the name). */
const expireSendId = 'replyflow.expire';

/** The event a timer's send id implies, when its event is left out of the stored value. */
export function impliedTimerEvent(sendId: string): TimerRecord['event'] {
  return sendId === expireSendId ? { type: 'conversation.expire' } : { type: sendId };
}

/**
 * The body the commit stores: the record less what the key and the header already say, its
 * `timers` keyed by send id (`@<timer id>` for a timer of another run, or whose send id starts
 * with `@`) rather than by `<run id>:<send id>`.
 */
export function conversationBody(record: ConversationRecord): string {
  const { v, runId, location: _l, phone: _p, seq: _s, timers, snapshot, ...stored } = record;
  const rest = { ...stored, ...compactSnapshot(snapshot) };
  const own = `${runId}:`;
  const short =
    timers &&
    Object.fromEntries(
      Object.entries(timers).map(([id, dueAt]) => {
        const sendId = id.startsWith(own) ? id.slice(own.length) : undefined;
        return [sendId === undefined || sendId.startsWith('@') ? `@${id}` : sendId, dueAt];
      }),
    );
  return storableJson({ v, runId, ...rest, ...(short && { timers: short }) });
}

/**
 * An XState persisted snapshot always carries `historyValue` and `children`, most often both
 * `{}`: those are left out, and the snapshot stored as `xs` so the reader knows to put them back.
 */
function compactSnapshot(snapshot: unknown): { snapshot: unknown } | { xs: object } {
  if (typeof snapshot !== 'object' || snapshot === null) return { snapshot };
  const { historyValue, children, ...rest } = snapshot as Record<string, unknown>;
  if (!isEmptyObject(historyValue) || !isEmptyObject(children)) return { snapshot };
  return { xs: rest };
}

function isEmptyObject(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).length === 0
  );
}

/** The record's `timers` back from `conversationBody`'s form. */
function fullTimerIds(runId: string, timers: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(timers).map(([key, dueAt]) => [
      key.startsWith('@') ? key.slice(1) : `${runId}:${key}`,
      dueAt,
    ]),
  );
}

/**
 * A timer as the commit passes it and the value keeps it: `[send id, due]`, then its event JSON
 * when not the implied one (`false` otherwise), then its run id when it is not the record's.
 */
export type StoredTimer =
  | [string, number]
  | [string, number, string]
  | [string, number, string | false, string];

export function storedTimer(timer: TimerRecord, recordRunId: string | undefined): StoredTimer {
  const json = storableJson(timer.event);
  const event = json === storableJson(impliedTimerEvent(timer.sendId)) ? false : json;
  if (timer.runId !== recordRunId) return [timer.sendId, timer.dueAt, event, timer.runId];
  return event === false ? [timer.sendId, timer.dueAt] : [timer.sendId, timer.dueAt, event];
}

/** A stored value cut into its five lines, none decoded yet. */
export interface ValueLines {
  /** The write mark ('' for none). */
  mark?: string;
  seq: number;
  applied: string;
  timers: string;
  messages: string;
  record: string;
  transcript: string;
}

/** Cuts a stored conversation value into its lines; null for none (`''` or nil from a script). */
export function valueLines(stored: unknown): ValueLines | null {
  if (stored === '' || stored === null || stored === undefined) return null;
  if (typeof stored !== 'string') {
    throw new Error(`unexpected Redis reply ${String(stored)}: expected a conversation value`);
  }
  // The write mark's line, when there is one, comes before the value's own lines.
  const marked = stored.startsWith('~');
  const markEnd = marked ? stored.indexOf('\n') : -1;
  if (marked && markEnd < 0) throw new Error(notThisLayout);
  const ends: number[] = [];
  for (let at = markEnd, line = 0; line < 4; line++) {
    at = stored.indexOf('\n', at + 1);
    if (at < 0) throw new Error(notThisLayout);
    ends.push(at);
  }
  const [first = 0, second = 0, third = 0, fourth = 0] = ends;
  // A sixth line, the transcript, is there once the conversation has a message.
  const fifth = stored.indexOf('\n', fourth + 1);
  return {
    mark: marked ? stored.slice(1, markEnd) : '',
    seq: Number(stored.slice(markEnd + 1, first)),
    applied: stored.slice(first + 1, second),
    timers: stored.slice(second + 1, third),
    messages: stored.slice(third + 1, fourth),
    record: fifth < 0 ? stored.slice(fourth + 1) : stored.slice(fourth + 1, fifth),
    transcript: fifth < 0 ? '' : stored.slice(fifth + 1),
  };
}

const notThisLayout =
  'a conversation value is not in the layout of this release (seq, applied, timers, messages, record)';

/**
 * A stored value from its lines, as `conversationValue` in lib/conversation-parts.lua writes it,
 * with the write mark in front when `mark` is set.
 */
export function joinValueLines(lines: ValueLines): string {
  const head = `${lines.mark ? `~${lines.mark}\n` : ''}${lines.seq}\n${lines.applied}\n${lines.timers}\n${lines.messages}\n${lines.record}`;
  return lines.transcript === '' ? head : `${head}\n${lines.transcript}`;
}

/** The record of a value's last line, with what the key and the seq line say put back. */
function recordOf(lines: ValueLines, key: ConversationKey): ConversationRecord | null {
  if (lines.record === '') return null;
  const body = JSON.parse(lines.record) as Omit<ConversationRecord, 'location' | 'phone' | 'seq'>;
  const { xs, ...fields } = body as typeof body & { xs?: object };
  return {
    ...fields,
    ...(xs && { snapshot: { ...xs, historyValue: {}, children: {} } }),
    location: key.location,
    phone: key.phone,
    seq: lines.seq,
    ...(body.timers && { timers: fullTimerIds(body.runId, body.timers) }),
  } as ConversationRecord;
}

/** Reads a stored conversation value, every line of it; null for none. */
export function readConversationValue(
  stored: unknown,
  key: ConversationKey,
): ConversationValue | null {
  const lines = valueLines(stored);
  if (!lines) return null;
  const record = recordOf(lines, key);
  const applied = lines.applied === '' ? [] : (JSON.parse(lines.applied) as unknown[]).slice(1);
  const timers: TimerRecord[] =
    lines.timers === ''
      ? []
      : (JSON.parse(lines.timers) as StoredTimer[]).map(([sendId, dueAt, event, runId]) => {
          const run = runId ?? record?.runId ?? '';
          return {
            v: 1,
            id: `${run}:${sendId}`,
            location: key.location,
            phone: key.phone,
            runId: run,
            sendId,
            dueAt,
            event: typeof event === 'string' ? JSON.parse(event) : impliedTimerEvent(sendId),
          };
        });
  timers.sort((a, b) => a.dueAt - b.dueAt);
  const messages =
    lines.messages === ''
      ? []
      : (JSON.parse(lines.messages) as MessageEntry[]).map(
          ([smsId, rank, sent, record]): [string, string] => [
            smsId,
            `${rank}${sent}${storableJson(record)}`,
          ],
        );
  const transcript = transcriptEntriesOf(lines.transcript);
  return { seq: lines.seq, applied: applied as string[], timers, messages, record, transcript };
}

/** A transcript line's entries (see `ConversationValue`), oldest first. */
function transcriptEntriesOf(line: string): StoredTranscriptEntry[] {
  if (line === '') return [];
  const texts = line.split('\t');
  // The count of entries (`#<n>`) that scripts keep first, so they never count the tabs.
  if (texts[0]?.startsWith('#')) texts.shift();
  return texts.map((text): StoredTranscriptEntry => {
    const [at, second, third] = JSON.parse(text.slice(1)) as [number, string, string];
    return text.startsWith('i')
      ? { direction: 'in', at, body: second, stateAfter: third }
      : { direction: 'out', at, body: third, smsId: second };
  });
}

/**
 * Just the record of a stored conversation value: the worker's view of every claim and commit,
 * so the other lines (applied log, timers, messages) are cut off, not decoded.
 */
export function conversationRecordOf(
  stored: unknown,
  key: ConversationKey,
): ConversationRecord | null {
  const lines = valueLines(stored);
  return lines && recordOf(lines, key);
}

/**
 * The record of a stored conversation value and the stored record (message-value.ts) of sms
 * `smsId` when its messages line holds it (`undefined` when it does not: the sms has a key of
 * its own, or none), as `lib/message-of.lua` finds it; null for no value. Only the messages
 * line is decoded, and only when it names the sms.
 */
export function directViewOf(
  stored: unknown,
  key: ConversationKey,
  smsId: string | undefined,
): { record: ConversationRecord | null; message: string | undefined } | null {
  const lines = valueLines(stored);
  if (!lines) return null;
  let message: string | undefined;
  if (smsId !== undefined && lines.messages.includes(JSON.stringify(smsId))) {
    for (const [id, rank, sent, record] of JSON.parse(lines.messages) as MessageEntry[]) {
      if (id === smsId) message = `${rank}${sent}${storableJson(record)}`;
    }
  }
  return { record: recordOf(lines, key), message };
}
