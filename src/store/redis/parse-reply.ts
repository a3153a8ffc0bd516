import type { ConversationKey, DroppedMessage, MailboxEvent, OutboundMessage } from '../records.ts';
import type { CommitResult, InboxView, OutboxView, RecordSentResult } from '../store.ts';
import { conversationRecordOf } from './conversation-value.ts';
import { messageRecordOf } from './message-value.ts';

/** A JSON value from a script reply, where the scripts answer '' (or Redis nil) for "none". */
export function jsonOrNull<T>(value: unknown): T | null {
  if (value === '' || value === null || value === undefined || value === false) return null;
  if (typeof value !== 'string')
    throw new Error(`unexpected Redis reply ${String(value)}: expected JSON`);
  return JSON.parse(value) as T;
}

/**
 * `{stored conversation, head event JSON, stored origin message}` triples, as
 * `read-inbox-3.lua`, `commit-step-17.lua` and `claim-8.lua` (inbox) return them.
 */
export function inboxViewOf(reply: unknown[], key: ConversationKey): InboxView {
  const [record, head, origin] = reply;
  const next = jsonOrNull<MailboxEvent>(head);
  const originSmsId =
    next?.kind === 'reply' ? next.originSmsId : next?.kind === 'status' ? next.smsId : undefined;
  return {
    record: conversationRecordOf(record, key),
    next,
    origin:
      originSmsId === undefined
        ? null
        : messageRecordOf(origin, originSmsId, key.phone, key.location),
  };
}

/**
 * `{head message JSON, sms id, taken over, dropped JSON}`, as `claim-8.lua` (outbox) returns
 * them; `read-outbox-7.lua`, `record-sent-13.lua` and `commit-step-17.lua` answer the same with
 * '' for `taken over`.
 */
export function outboxViewOf(reply: unknown[]): OutboxView {
  const [message, smsId, takenOver, dropped] = reply;
  const droppedList = jsonOrNull<DroppedMessage[]>(dropped);
  return {
    message: jsonOrNull<OutboundMessage>(message),
    sentSmsId: typeof smsId === 'string' && smsId !== '' ? smsId : null,
    ...(takenOver === 1 && { takenOver: true }),
    ...(droppedList && droppedList.length > 0 && { dropped: droppedList }),
  };
}

/** `record-sent-13.lua`'s reply: `{'ok', next head, sms id, released, dropped}` or `{'lost-lock'}`. */
export function recordSentResultOf(reply: unknown): RecordSentResult {
  const [status, ...view] = Array.isArray(reply) ? reply : [reply];
  if (status === 'ok') {
    const [head, smsId, released, dropped] = view;
    return {
      ok: true,
      nextOutbox: outboxViewOf([head, smsId, '', dropped]),
      released: released === 1,
    };
  }
  if (status === 'lost-lock') return { ok: false, reason: status };
  throw new Error(`unexpected store script reply ${String(status)}`);
}

/** The `'ok' | 'lost-lock' | 'stale'` status reply of the outbox scripts. */
export function commitResultOf(reply: unknown): CommitResult {
  if (reply === 'ok') return { ok: true };
  if (reply === 'lost-lock' || reply === 'stale') return { ok: false, reason: reply };
  throw new Error(`unexpected store script reply ${String(reply)}`);
}
