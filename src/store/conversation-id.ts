import type { ConversationKey } from './records.ts';

const location = /^[A-Za-z0-9_-]+$/;
const phone = /^\d+$/;

/**
 * The one string form of a conversation key, `<location>:<phone>`: the member of the ready sets
 * and the tail of every per-conversation key. Both parts are checked, because a `:` or a `{`
 * in either would let one conversation's keys collide with another's (or leave its hash slot).
 */
export function conversationId(key: ConversationKey): string {
  if (!location.test(key.location)) {
    throw new TypeError(`invalid location '${key.location}': use letters, digits, '_' or '-'`);
  }
  if (!phone.test(key.phone)) {
    throw new TypeError(
      'invalid phone: the store keys conversations by digits only (service form)',
    );
  }
  return `${key.location}:${key.phone}`;
}

/** The inverse of `conversationId`. */
export function parseConversationId(id: string): ConversationKey {
  const colon = id.lastIndexOf(':');
  return { location: id.slice(0, colon), phone: id.slice(colon + 1) };
}
