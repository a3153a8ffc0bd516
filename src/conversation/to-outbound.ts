import type { ConversationRecord, OutboundMessage } from '../store/records.ts';

/** The outbound message for the `index`-th reply of a step; its id is stable across retries of the step. */
export function toOutbound(
  run: ConversationRecord,
  eventId: string,
  index: number,
  body: string,
  now: number,
): OutboundMessage {
  return {
    v: 1,
    id: `${eventId}:${index}`,
    location: run.location,
    phone: run.phone,
    runId: run.runId,
    botId: run.botId,
    body,
    queuedAt: now,
    attempts: 0,
  };
}
