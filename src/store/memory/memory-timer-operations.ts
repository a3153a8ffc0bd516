import { checkTimerClaim } from '../check-timer-claim.ts';
import { conversationId } from '../conversation-id.ts';
import type { Store } from '../store.ts';
import { completeTimerEvent, timerRecordOf } from '../timer-event-json.ts';
import type { MemoryState } from './memory-state.ts';

type TimerOperations = Pick<Store, 'claimDueTimers' | 'nextTimerDue' | 'pendingTimers'>;

/** The durable timers, as `claim-due-timers-4.lua` and `pendingTimers` do them on Redis. */
export function memoryTimerOperations(state: MemoryState): TimerOperations {
  return {
    async claimDueTimers(partition, now, limit) {
      checkTimerClaim(now, limit);
      const due = state.timersOf(partition).takeDue(now, limit);
      for (const timer of due) {
        const event = completeTimerEvent(timer.eventStart, now);
        state.queues.inbox.append(timer.conversation, partition, [event], now);
      }
      if (due.length > 0) state.listeners.emit('inbox', partition);
      return due.length;
    },

    async nextTimerDue(partition) {
      return state.timersOf(partition).next();
    },

    async pendingTimers(key) {
      const timers = state.timersOf(state.partitionOf(key.phone));
      return timers.pending(conversationId(key)).map(timerRecordOf);
    },
  };
}
