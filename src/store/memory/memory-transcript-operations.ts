import { conversationId } from '../conversation-id.ts';
import type { ConversationRecord, ConversationResult, MessageRecord } from '../records.ts';
import type { Store } from '../store.ts';
import { timerRecordOf } from '../timer-event-json.ts';
import { buildTranscript } from '../transcript.ts';
import { type MemoryState, parse } from './memory-state.ts';

/** A conversation's transcript, joined from what the memory store holds as the Redis script does. */
export function memoryTranscriptOperations(state: MemoryState): Pick<Store, 'readTranscript'> {
  return {
    async readTranscript(key) {
      const id = conversationId(key);
      const record = parse<ConversationRecord>(state.conversations.get(id));
      const entries = state.transcripts.get(id) ?? [];
      const messages = new Map<string, MessageRecord>();
      for (const { smsId } of entries) {
        const message = smsId && state.messages.get(state.inPartition(key.phone, smsId));
        if (smsId && message) messages.set(smsId, JSON.parse(message) as MessageRecord);
      }
      const timers = state.timersOf(state.partitionOf(key.phone)).pending(id).map(timerRecordOf);
      const result = record ? parse<ConversationResult>(state.results.get(record.runId)) : null;
      return buildTranscript({ key, record, timers, entries, messages, result });
    },
  };
}
