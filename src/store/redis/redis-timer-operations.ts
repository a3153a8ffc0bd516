import { checkTimerClaim } from '../check-timer-claim.ts';
import type { Store } from '../store.ts';
import { timerRecordOf } from '../timer-event-json.ts';
import { type RedisStoreContext, withStoreErrors } from './redis-store-context.ts';

type TimerOperations = Pick<Store, 'claimDueTimers' | 'nextTimerDue' | 'pendingTimers'>;

/**
 * The durable timers: written and deleted by `commit-step-17.lua`, moved into mailboxes when
 * due by `claim-due-timers-5.lua`. A partition's timers are one zset scored by due time, so
 * finding the due ones costs O(log n) whatever their number, and no process holds a timer.
 */
export function redisTimerOperations({ redis, keys, scripts }: RedisStoreContext): TimerOperations {
  return {
    async claimDueTimers(partition, now, limit) {
      checkTimerClaim(now, limit);
      const p = keys.partition(partition);
      const scriptKeys = [
        p.timers,
        p.timerPrefix,
        p.conversationTimersPrefix,
        p.listPrefix('inbox'),
        p.ready('inbox'),
      ];
      const args = [now, limit, keys.readyChannel, p.readyMessage('inbox')];
      const moved = await withStoreErrors('claimDueTimers', () =>
        scripts.run('claim-due-timers', scriptKeys, args),
      );
      return Number(moved);
    },

    async nextTimerDue(partition) {
      const timers = keys.partition(partition).timers;
      const [, score] = await withStoreErrors('nextTimerDue', () =>
        redis.zrange(timers, '0', '0', 'WITHSCORES'),
      );
      return score === undefined ? null : Number(score);
    },

    async pendingTimers(key) {
      const c = keys.conversation(key);
      const stored = await withStoreErrors('pendingTimers', () =>
        scripts.run('read-timers', [c.conversationTimers, c.timerPrefix], []),
      );
      return (stored as string[]).map(timerRecordOf);
    },
  };
}
