import { checkTimerClaim } from '../check-timer-claim.ts';
import type { Store } from '../store.ts';
import { readConversationValue } from './conversation-value.ts';
import { type RedisStoreContext, withStoreErrors } from './redis-store-context.ts';

type TimerOperations = Pick<Store, 'claimDueTimers' | 'nextTimerDue' | 'pendingTimers'>;

/**
 * The durable timers: each conversation's pending timers live in its value
 * (`conversation-value.ts`), written by `commit-step-17.lua`; the partition's zset holds one
 * entry per conversation at its earliest due time, so finding the due ones costs O(log n)
 * whatever their number, and no process holds a timer. `claim-due-timers-4.lua` moves them
 * into mailboxes when due.
 */
export function redisTimerOperations({ redis, keys, scripts }: RedisStoreContext): TimerOperations {
  return {
    async claimDueTimers(partition, now, limit) {
      checkTimerClaim(now, limit);
      const p = keys.partition(partition);
      const scriptKeys = [p.timers, p.conversationPrefix, p.listPrefix('inbox'), p.ready('inbox')];
      let moved = 0;
      // One call moves up to `limit`; it stops early only after looking at many entries with
      // nothing due (expiries pushed later by activity), and then says there may be more.
      for (;;) {
        const args = [now, limit - moved, keys.readyChannel, p.readyMessage('inbox')];
        const [count, more] = (await withStoreErrors('claimDueTimers', () =>
          scripts.run('claim-due-timers', scriptKeys, args),
        )) as [number, number];
        moved += Number(count);
        if (Number(more) !== 1 || moved >= limit) return moved;
      }
    },

    async nextTimerDue(partition) {
      const timers = keys.partition(partition).timers;
      const [, score] = await withStoreErrors('nextTimerDue', () =>
        redis.zrange(timers, '0', '0', 'WITHSCORES'),
      );
      return score === undefined ? null : Number(score);
    },

    async pendingTimers(key) {
      const stored = await withStoreErrors('pendingTimers', () =>
        redis.get(keys.conversation(key).record),
      );
      return readConversationValue(stored, key)?.timers ?? [];
    },
  };
}
