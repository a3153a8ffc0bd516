import { randomUUID } from 'node:crypto';
import type { Store } from '../store/store.ts';

export interface StartConversationInput {
  location: string;
  /** Digits with the country prefix (`33612345678`). */
  phone: string;
  botId: string;
  input?: unknown;
  /** Makes the start idempotent: the same id twice starts once. Default: a random id. */
  id?: string;
  /** When the phone has an active conversation: `replace` it, or `queue` behind it (default: dropped). */
  policy?: 'replace' | 'queue';
  now: number;
}

/**
 * Asks for a bot's conversation with a phone. The start goes through the phone's mailbox like
 * any other event, so it is ordered with replies and applied once; the bot receives
 * `conversation.start` with `input`. It is dropped if the phone already has an active conversation.
 *
 * @example
 * await startConversation(store, { location: 'paris', phone: '33612345678', botId: 'appointment', input: { at: '2026-12-01T10:00' }, now: Date.now() });
 */
export async function startConversation(
  store: Store,
  start: StartConversationInput,
): Promise<string> {
  const id = start.id ?? `start:${randomUUID()}`;
  await store.ingest(
    id,
    [
      {
        event: {
          v: 1,
          id: `${id}:0`,
          kind: 'start',
          location: start.location,
          phone: start.phone,
          receivedAt: start.now,
          botId: start.botId,
          input: start.input ?? {},
          ...(start.policy && { policy: start.policy }),
        },
      },
    ],
    start.now,
  );
  return id;
}
