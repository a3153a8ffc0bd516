import type { ConversationResult, MessageRecord } from '../records.ts';
import type { Store } from '../store.ts';
import { storeLimits } from '../store-limits.ts';
import { buildTranscript } from '../transcript.ts';
import { readConversationValue } from './conversation-value.ts';
import { messageRecordOf } from './message-value.ts';
import { type RedisStoreContext, withStoreErrors } from './redis-store-context.ts';

/**
 * A conversation's transcript: one script call (`read-transcript-3.lua`) reads its value (with
 * the older entries of its transcript list, `spillTranscript`), the
 * message records of its outbound messages kept in keys of their own, and its run's result.
 */
export function redisTranscriptOperations({
  keys,
  scripts,
}: RedisStoreContext): Pick<Store, 'readTranscript'> {
  return {
    async readTranscript(key) {
      const c = keys.conversation(key);
      const reply = (await withStoreErrors('readTranscript', () =>
        scripts.run(
          'read-transcript',
          [c.record, c.messagePrefix, c.resultPrefix],
          [storeLimits.transcriptEntries],
        ),
      )) as string[];
      const [stored = '', resultJson = '', ...spilled] = reply;
      const value = readConversationValue(stored, key);
      if (!value) return null;
      const messages = new Map<string, MessageRecord>();
      for (const [smsId, message] of value.messages) {
        const record = messageRecordOf(message, smsId, key.phone, key.location);
        if (record) messages.set(smsId, record);
      }
      for (let i = 0; i + 1 < spilled.length; i += 2) {
        const smsId = spilled[i]!;
        const record = messageRecordOf(spilled[i + 1], smsId, key.phone);
        if (record) messages.set(smsId, record);
      }
      return buildTranscript({
        key,
        record: value.record,
        timers: value.timers,
        entries: value.transcript,
        messages,
        result: resultJson === '' ? null : (JSON.parse(resultJson) as ConversationResult),
      });
    },
  };
}
