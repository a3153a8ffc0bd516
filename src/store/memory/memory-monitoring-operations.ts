import type { ConversationRecord } from '../records.ts';
import type { Store } from '../store.ts';
import { tallyActive } from '../store-sample.ts';
import type { MemoryState } from './memory-state.ts';

type MonitoringOperations = Pick<Store, 'ping' | 'sample'>;

/** Readiness and metrics reads over the memory store: always reachable. */
export function memoryMonitoringOperations(state: MemoryState): MonitoringOperations {
  return {
    async ping() {},
    async sample(limit = 1_000) {
      const records: ConversationRecord[] = [];
      for (const json of state.conversations.values()) {
        if (records.length >= limit) break;
        records.push(JSON.parse(json) as ConversationRecord);
      }
      return {
        active: tallyActive(records),
        scanned: records.length,
        complete: records.length === state.conversations.size,
        outboxDepth: state.queues.outbox.size,
        deadLetters: state.deadLetters.length,
      };
    },
  };
}
