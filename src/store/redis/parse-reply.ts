import type { MailboxEvent, MessageRecord, OutboundMessage } from '../records.ts';
import type { CommitResult, InboxView, OutboxView, RecordSentResult } from '../store.ts';

/** A JSON value from a script reply, where the scripts answer '' (or Redis nil) for "none". */
export function jsonOrNull<T>(value: unknown): T | null {
  if (value === '' || value === null || value === undefined || value === false) return null;
  if (typeof value !== 'string')
    throw new Error(`unexpected Redis reply ${String(value)}: expected JSON`);
  return JSON.parse(value) as T;
}

/** `{record, head, origin}` JSON triples, as `read-inbox-3.lua`, `commit-step-13.lua` and `claim-7.lua` (inbox) return them. */
export function inboxViewOf(reply: unknown[]): InboxView {
  const [record, next, origin] = reply;
  return {
    record: jsonOrNull(record),
    next: jsonOrNull<MailboxEvent>(next),
    origin: jsonOrNull<MessageRecord>(origin),
  };
}

/** `{head message JSON, sms id}` pairs, as `read-outbox-2.lua` and `record-sent-10.lua` return them, or `claim-7.lua` (outbox) with its `taken over` flag after them. */
export function outboxViewOf(reply: unknown[]): OutboxView {
  const [message, smsId, takenOver] = reply;
  return {
    message: jsonOrNull<OutboundMessage>(message),
    sentSmsId: typeof smsId === 'string' && smsId !== '' ? smsId : null,
    ...(takenOver === 1 && { takenOver: true }),
  };
}

/** `record-sent-10.lua`'s reply: `{'ok', next head, sms id, released}` or `{'lost-lock'}`. */
export function recordSentResultOf(reply: unknown): RecordSentResult {
  const [status, ...view] = Array.isArray(reply) ? reply : [reply];
  if (status === 'ok')
    return { ok: true, nextOutbox: outboxViewOf(view.slice(0, 2)), released: view[2] === 1 };
  if (status === 'lost-lock') return { ok: false, reason: status };
  throw new Error(`unexpected store script reply ${String(status)}`);
}

/** The `'ok' | 'lost-lock' | 'stale'` status reply of the outbox scripts. */
export function commitResultOf(reply: unknown): CommitResult {
  if (reply === 'ok') return { ok: true };
  if (reply === 'lost-lock' || reply === 'stale') return { ok: false, reason: reply };
  throw new Error(`unexpected store script reply ${String(reply)}`);
}
