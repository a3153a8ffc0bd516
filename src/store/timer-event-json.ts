import type { TimerEvent, TimerRecord } from './records.ts';

/**
 * What the memory store keeps for a timer: the JSON of the `TimerEvent` it becomes, less
 * `receivedAt` and the closing brace, which are appended when it fires (`completeTimerEvent`).
 * (The Redis store keeps its timers in the conversation's value, `redis/conversation-value.ts`,
 * and builds the same event when one fires.)
 * So the bot's event payload is never decoded and re-encoded on the way (Redis's cjson would
 * turn `[]` into `{}` and round numbers to 14 digits), and one string per timer says it all.
 * `location` and `phone` come first.
 */
export function timerEventJsonStart(timer: TimerRecord): string {
  const event: Omit<TimerEvent, 'receivedAt'> = {
    location: timer.location,
    phone: timer.phone,
    v: 1,
    id: `timer:${timer.id}:${timer.dueAt}`,
    kind: 'timer',
    runId: timer.runId,
    timerId: timer.id,
    dueAt: timer.dueAt,
    event: timer.event,
  };
  return JSON.stringify(event).slice(0, -1);
}

/** The whole `TimerEvent` JSON, as `claim-due-timers-4.lua` finishes it too. */
export function completeTimerEvent(start: string, receivedAt: number): string {
  return `${start},"receivedAt":${receivedAt}}`;
}

/** The timer record back from what the drivers store (its id is `${runId}:${sendId}`). */
export function timerRecordOf(start: string): TimerRecord {
  const event = JSON.parse(`${start}}`) as Omit<TimerEvent, 'receivedAt'>;
  return {
    v: 1,
    id: event.timerId,
    location: event.location,
    phone: event.phone,
    runId: event.runId,
    sendId: event.timerId.slice(event.runId.length + 1),
    dueAt: event.dueAt,
    event: event.event,
  };
}
