import type { MailboxEvent, MessageRecord } from '../records.ts';
import type { CommitResult, InboxView } from '../store.ts';

/** A JSON value from a script reply, where the scripts answer '' (or Redis nil) for "none". */
export function jsonOrNull<T>(value: unknown): T | null {
  if (value === '' || value === null || value === undefined || value === false) return null;
  if (typeof value !== 'string')
    throw new Error(`unexpected Redis reply ${String(value)}: expected JSON`);
  return JSON.parse(value) as T;
}

/** `{record, head, origin}` JSON triples, as `read-inbox-3.lua` and `commit-step-11.lua` return them. */
export function inboxViewOf(reply: unknown[]): InboxView {
  const [record, next, origin] = reply;
  return {
    record: jsonOrNull(record),
    next: jsonOrNull<MailboxEvent>(next),
    origin: jsonOrNull<MessageRecord>(origin),
  };
}

/** The `'ok' | 'lost-lock' | 'stale'` status reply of the outbox scripts. */
export function commitResultOf(reply: unknown): CommitResult {
  if (reply === 'ok') return { ok: true };
  if (reply === 'lost-lock' || reply === 'stale') return { ok: false, reason: reply };
  throw new Error(`unexpected store script reply ${String(reply)}`);
}
