import type { OutboundEvent } from '../../events/outbound-event.ts';
import { progressOf, type QueuedEvent } from '../event-outbox.ts';
import { storableJson } from '../storable-json.ts';

/**
 * An event's value in its partition's `evt` / `evt-dead` hash: a header line, JSON
 * `[attempts, queuedAt, lastError, deadAt, reason, deliveredTo?, gaveUpOn?]` the scripts decode
 * and rewrite (the last two, words, are added by the first settle), then the
 * event's JSON as the engine made it, which no script decodes (so `cjson` never alters a bot's
 * payload: `[]` would become `{}`).
 */
export function eventValue(event: OutboundEvent, queuedAt: number): string {
  return `[0,${queuedAt},"",0,""]\n${storableJson(event)}`;
}

export function queuedEventOf(partition: number, value: string, dueAt?: number): QueuedEvent {
  const newline = value.indexOf('\n');
  const [attempts, queuedAt, lastError, deadAt, reason, delivered = '', gaveUp = ''] = JSON.parse(
    value.slice(0, newline),
  ) as [number, number, string, number, string, string?, string?];
  return {
    partition,
    event: JSON.parse(value.slice(newline + 1)) as OutboundEvent,
    attempts,
    queuedAt,
    ...(dueAt !== undefined && { dueAt }),
    ...(lastError && { lastError }),
    ...(deadAt > 0 && { deadAt, reason }),
    ...progressOf(delivered, gaveUp),
  };
}
