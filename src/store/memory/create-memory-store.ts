import { randomUUID } from 'node:crypto';
import { conversationId } from '../conversation-id.ts';
import { ReadyListeners } from '../ready-listeners.ts';
import type { ConversationResult, DeadLetter, MailboxEvent, OutboundMessage } from '../records.ts';
import { storableJson } from '../storable-json.ts';
import type { Store } from '../store.ts';
import { defaultRetentionMs, storeLimits } from '../store-limits.ts';
import { memoryCampaignOperations } from './memory-campaign-operations.ts';
import { memoryEventOperations } from './memory-event-operations.ts';
import { memoryInboxOperations } from './memory-inbox-operations.ts';
import { memoryMonitoringOperations } from './memory-monitoring-operations.ts';
import { memoryOutboxOperations } from './memory-outbox-operations.ts';
import { memoryScanOperations } from './memory-scan-operations.ts';
import { MemoryState, parse } from './memory-state.ts';
import { memorySuppressionOperations } from './memory-suppression-operations.ts';
import { memoryTimerOperations } from './memory-timer-operations.ts';
import { memoryTranscriptOperations } from './memory-transcript-operations.ts';

export interface MemoryStoreOptions {
  partitions?: number;
  /** Makes lock tokens; inject a deterministic one in tests that look at tokens. */
  newToken?: () => string;
  /** Receives what has no caller to reject with: errors thrown by `onReady` listeners. */
  onError?: (error: unknown) => void;
  /** How long dead letters are kept (`REPLYFLOW_RETENTION`); default 30 days. */
  retentionMs?: number;
}

/**
 * The embedded store: everything in process memory, lost on exit. Same semantics as the Redis
 * driver (the contract suite runs against both), including leases judged by the `now`
 * arguments. Records are kept as JSON strings, so callers never share objects with the store
 * and what comes back is exactly what Redis would give back.
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): Store {
  const retentionMs = options.retentionMs ?? defaultRetentionMs;
  const state = new MemoryState(options.partitions ?? 16, new ReadyListeners(options.onError));
  const items = <T>(queue: 'inbox' | 'outbox', id: string) =>
    state.queues[queue].items(id).map((json) => JSON.parse(json) as T);

  return {
    partitions: state.partitions,
    partitionOf: (phone) => state.partitionOf(phone),
    ...memoryInboxOperations(state, options.newToken ?? randomUUID),
    ...memoryOutboxOperations(state),
    ...memoryTimerOperations(state),
    ...memoryScanOperations(state),
    ...memorySuppressionOperations(state),
    ...memoryMonitoringOperations(state),
    ...memoryCampaignOperations(state),
    ...memoryTranscriptOperations(state),
    ...memoryEventOperations(state.eventOutboxes, retentionMs),
    onReady: (listener) => state.listeners.add(listener),
    onTimerArmed(listener) {
      state.timerListeners.add(listener);
      return () => state.timerListeners.delete(listener);
    },
    onEventsQueued(listener) {
      state.eventListeners.add(listener);
      return () => state.eventListeners.delete(listener);
    },

    async getConversation(key) {
      return parse(state.conversations.get(conversationId(key)));
    },
    async *listResults(botId, query = {}) {
      // Partition by partition, oldest start first, as the Redis driver reads them.
      const results = [...state.results.values()]
        .map((json) => JSON.parse(json) as ConversationResult)
        .filter(
          (r) =>
            r.bot === botId &&
            r.startedAt >= (query.since ?? Number.NEGATIVE_INFINITY) &&
            (query.location === undefined || r.location === query.location),
        )
        .sort(
          (a, b) =>
            state.partitionOf(a.phone) - state.partitionOf(b.phone) ||
            a.startedAt - b.startedAt ||
            (a.runId < b.runId ? -1 : 1),
        );
      if (results.length > 0) yield results;
    },
    async getMessage(phone, smsId) {
      return parse(state.messages.get(state.inPartition(phone, smsId)));
    },
    async listApplied(key) {
      return [...(state.applied.get(conversationId(key))?.ids ?? [])];
    },
    async pendingEvents(key) {
      return items<MailboxEvent>('inbox', conversationId(key));
    },
    async pendingOutbound(key) {
      return items<OutboundMessage>('outbox', conversationId(key));
    },

    async pushDeadLetter(letter) {
      // As on Redis: newest first, capped, none older than the retention.
      const oldest = letter.at - retentionMs;
      state.deadLetters.unshift(storableJson(letter));
      state.deadLetters.length = Math.min(state.deadLetters.length, storeLimits.deadLetterCap);
      while (state.deadLetters.length > 0) {
        const last = JSON.parse(state.deadLetters.at(-1)!) as DeadLetter;
        if (last.at >= oldest) break;
        state.deadLetters.pop();
      }
    },
    async listDeadLetters(limit = storeLimits.deadLetterCap) {
      return state.deadLetters.slice(0, limit).map((json) => JSON.parse(json) as DeadLetter);
    },

    async close() {
      state.listeners.clear();
    },
  };
}
