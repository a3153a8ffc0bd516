import { type EventOutbox, maskedEvent, progressWords, type QueuedEvent } from '../event-outbox.ts';
import { storeLimits } from '../store-limits.ts';
import { queuedEventOf } from './event-value.ts';
import { announceEvents, type RedisStoreContext, withStoreErrors } from './redis-store-context.ts';

/** The outbound events' outbox (issue 24): one call per partition, each in its slot. */
export function redisEventOperations({
  redis,
  keys,
  scripts,
  retention,
}: RedisStoreContext): Omit<EventOutbox, 'onEventsQueued'> {
  const partitionKeys = (partition: number) => {
    const p = keys.partition(partition);
    return [p.events, p.eventsDue, p.deadEvents, p.deadEventsAt];
  };
  const partitions = Array.from({ length: keys.partitionCount }, (_, p) => p);

  return {
    async claimDueEvents(partition, now, leaseMs, max) {
      const [events, due] = partitionKeys(partition);
      const reply = (await withStoreErrors('claimDueEvents', () =>
        scripts.run('claim-due-events', [events!, due!], [now, leaseMs, max]),
      )) as string[];
      const claimed: QueuedEvent[] = [];
      for (let i = 0; i < reply.length; i += 2) {
        claimed.push(queuedEventOf(partition, reply[i + 1]!, now + leaseMs));
      }
      return claimed;
    },

    async settleEvent(partition, id, outcome, now) {
      const [kind, retryAt, text] =
        'delivered' in outcome
          ? ['delivered', 0, '']
          : 'retryAt' in outcome
            ? ['retry', outcome.retryAt, outcome.error ?? '']
            : ['dead', 0, outcome.deadLetter];
      const [delivered, gaveUp] = 'delivered' in outcome ? ['', ''] : progressWords(outcome);
      const args = [
        id,
        kind,
        retryAt,
        text,
        now,
        eventDeadLetterCap(),
        retention.conversationsMs,
        delivered,
        gaveUp,
      ];
      const settled = await withStoreErrors('settleEvent', () =>
        scripts.run('settle-event', partitionKeys(partition), args),
      );
      return settled === 1;
    },

    async listEvents({ failed = false, limit }) {
      const found = await Promise.all(
        partitions.map(async (partition) => {
          const [events, due, dead, deadAt] = partitionKeys(partition) as [
            string,
            string,
            string,
            string,
          ];
          const hash = failed ? dead : events;
          const index = failed ? deadAt : due;
          const ranked = await withStoreErrors('listEvents', () =>
            failed
              ? redis.zrevrange(index, '0', String(limit - 1), 'WITHSCORES')
              : redis.zrange(index, '0', String(limit - 1), 'WITHSCORES'),
          );
          const ids = ranked.filter((_, i) => i % 2 === 0);
          if (ids.length === 0) return [];
          const values = await withStoreErrors('listEvents', () => redis.hmget(hash, ...ids));
          return values.flatMap((value, i) =>
            value === null
              ? []
              : [queuedEventOf(partition, value, failed ? undefined : Number(ranked[2 * i + 1]))],
          );
        }),
      );
      const all = found.flat().map((queued) => ({ ...queued, event: maskedEvent(queued.event) }));
      all.sort((a, b) => (failed ? b.deadAt! - a.deadAt! : a.dueAt! - b.dueAt!));
      return all.slice(0, limit);
    },

    async replayEvent(id, now) {
      // The id does not tell its partition: an operator's command, so each is asked in turn.
      for (const partition of partitions) {
        const replayed = await withStoreErrors('replayEvent', () =>
          scripts.run('replay-event', partitionKeys(partition), [id, now]),
        );
        if (replayed === 1) {
          announceEvents({ redis, keys }, partition);
          return true;
        }
      }
      return false;
    },
  };

  function eventDeadLetterCap() {
    return Math.max(1, Math.ceil(storeLimits.deadLetterCap / keys.partitionCount));
  }
}
