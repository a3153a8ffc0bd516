import { randomUUID } from 'node:crypto';
import { expireSendId } from '../../conversation/plan-timers.ts';
import type { ConversationKey } from '../../store/records.ts';
import type { Store } from '../../store/store.ts';

/**
 * Ends a phone's active conversation now, the way its inactivity expiry would: the expiry timer
 * the run holds is put into the mailbox early (with the id the scheduler would give it, so it
 * still applies once), the bot hears `conversation.expire`, and the engine ends the run as
 * `expired`. The dev phone's "reset" uses it; the engine has no other way in from outside, on
 * purpose. A bot defined with `expiresAfter: false` holds no expiry timer and keeps going.
 */
export async function endConversationNow(
  store: Store,
  key: ConversationKey,
  now: number,
): Promise<{ ended: boolean; note: string }> {
  const record = await store.getConversation(key);
  if (record?.status !== 'active') {
    const optedOut = await store.isSuppressed(key);
    return {
      ended: false,
      note: optedOut
        ? 'number reset; it has opted out (STOP): text START from it to opt back in'
        : 'number reset',
    };
  }
  const expiry = (await store.pendingTimers(key)).find(
    (timer) => timer.runId === record.runId && timer.sendId === expireSendId,
  );
  if (!expiry) {
    return {
      ended: false,
      note: `number reset, but '${record.botId}' never expires (expiresAfter: false): its conversation goes on`,
    };
  }
  await store.ingest(
    `dev-reset:${randomUUID()}`,
    [
      {
        event: {
          v: 1,
          id: `timer:${expiry.id}:${expiry.dueAt}`,
          kind: 'timer',
          location: key.location,
          phone: key.phone,
          receivedAt: now,
          runId: expiry.runId,
          timerId: expiry.id,
          dueAt: expiry.dueAt,
          event: expiry.event,
        },
      },
    ],
    now,
  );
  return { ended: true, note: `number reset: '${record.botId}' ends as if it expired` };
}
