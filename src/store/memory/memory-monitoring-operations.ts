import { collectRecords } from '../collect-records.ts';
import type { Store } from '../store.ts';
import { tallyActive } from '../store-sample.ts';
import { memoryScanOperations } from './memory-scan-operations.ts';
import type { MemoryState } from './memory-state.ts';

type MonitoringOperations = Pick<Store, 'ping' | 'sample'>;

/** Readiness and metrics reads over the memory store: always reachable. */
export function memoryMonitoringOperations(state: MemoryState): MonitoringOperations {
  const { scanConversations } = memoryScanOperations(state);
  return {
    async ping() {},
    async sample(limit = 1_000) {
      const { records, complete } = await collectRecords(scanConversations, limit);
      return {
        active: tallyActive(records),
        scanned: records.length,
        complete,
        outboxDepth: state.queues.outbox.size,
        deadLetters: state.deadLetters.length,
      };
    },
  };
}
