import type { OutboundEvent } from '../../events/outbound-event.ts';
import {
  type EventOutbox,
  maskedEvent,
  progressOf,
  progressWords,
  type QueuedEvent,
  withWords,
} from '../event-outbox.ts';
import { storeLimits } from '../store-limits.ts';
import type { MemoryEventEntry, MemoryEventOutbox } from './memory-event-outbox.ts';

/** The outbound events' outbox, as the Redis driver keeps it (`redis-event-operations.ts`). */
export function memoryEventOperations(
  outboxes: readonly MemoryEventOutbox[],
  retentionMs: number,
): Omit<EventOutbox, 'onEventsQueued'> {
  const deadCap = Math.max(1, Math.ceil(storeLimits.deadLetterCap / outboxes.length));
  const outboxOf = (partition: number) => {
    const outbox = outboxes[partition];
    if (!outbox) throw new RangeError(`partition ${partition} does not exist`);
    return outbox;
  };
  const queuedEvent = (partition: number, entry: MemoryEventEntry, dueAt?: number) =>
    ({
      partition,
      event: JSON.parse(entry.json) as OutboundEvent,
      attempts: entry.attempts,
      queuedAt: entry.queuedAt,
      ...(dueAt !== undefined && { dueAt }),
      ...(entry.lastError && { lastError: entry.lastError }),
      ...(entry.deadAt > 0 && { deadAt: entry.deadAt, reason: entry.reason }),
      ...progressOf(entry.delivered, entry.gaveUp),
    }) satisfies QueuedEvent;

  return {
    async claimDueEvents(partition, now, leaseMs, max) {
      const outbox = outboxOf(partition);
      const due = [...outbox.due]
        .filter(([, at]) => at <= now)
        .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, max);
      return due.map(([id]) => {
        outbox.due.set(id, now + leaseMs);
        return queuedEvent(partition, outbox.queued.get(id)!, now + leaseMs);
      });
    },

    async settleEvent(partition, id, outcome, now) {
      const outbox = outboxOf(partition);
      const entry = outbox.queued.get(id);
      if (!entry) return false;
      if ('delivered' in outcome) {
        outbox.queued.delete(id);
        outbox.due.delete(id);
        return true;
      }
      entry.attempts += 1;
      const [delivered, gaveUp] = progressWords(outcome);
      entry.delivered = withWords(entry.delivered, delivered);
      entry.gaveUp = withWords(entry.gaveUp, gaveUp);
      if ('retryAt' in outcome) {
        entry.lastError = outcome.error ?? '';
        outbox.due.set(id, outcome.retryAt);
        return true;
      }
      outbox.queued.delete(id);
      outbox.due.delete(id);
      outbox.dead.set(id, { ...entry, deadAt: now, reason: outcome.deadLetter });
      // As settle-event-4.lua: none older than the retention, at most the cap, oldest first.
      const byAge = [...outbox.dead].sort((a, b) => a[1].deadAt - b[1].deadAt);
      byAge.forEach(([deadId, dead], i) => {
        if (dead.deadAt <= now - retentionMs || byAge.length - i > deadCap) {
          outbox.dead.delete(deadId);
        }
      });
      return true;
    },

    async listEvents({ failed = false, limit }) {
      const all = outboxes.flatMap((outbox, partition) =>
        failed
          ? [...outbox.dead.values()].map((entry) => queuedEvent(partition, entry))
          : [...outbox.queued].map(([id, entry]) =>
              queuedEvent(partition, entry, outbox.due.get(id)),
            ),
      );
      all.sort((a, b) => (failed ? b.deadAt! - a.deadAt! : a.dueAt! - b.dueAt!));
      return all.slice(0, limit).map((queued) => ({ ...queued, event: maskedEvent(queued.event) }));
    },

    async replayEvent(id, now) {
      for (const outbox of outboxes) {
        if (outbox.replay(id, now)) return true;
      }
      return false;
    },
  };
}
