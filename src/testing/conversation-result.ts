import type { ConversationRecord } from '../store/records.ts';

/**
 * What the harness can tell of a phone's last conversation, read from its conversation record:
 * the bot and version, whether it still runs, how it ended, and when.
 */
export interface ConversationResult {
  location: string;
  /** Digits with the country prefix. */
  phone: string;
  bot: string;
  botVersion: string;
  /** `active` while it runs; `done` once ended; `errored` when the bot threw. */
  status: ConversationRecord['status'];
  startedAt: Date;
  /** When it ended; undefined while it runs. */
  endedAt: Date | undefined;
  /**
   * Why it ended: `final`, the code given to `endConversation(code)`, `expired`,
   * `version_changed`, `BOT_THREW`…; undefined while it runs.
   */
  endCode: string | undefined;
}

/** The result of a conversation record. */
export function conversationResult(record: ConversationRecord): ConversationResult {
  const ended = record.status !== 'active';
  return {
    location: record.location,
    phone: record.phone,
    bot: record.botId,
    botVersion: record.botVersion,
    status: record.status,
    startedAt: new Date(record.startedAt),
    endedAt: ended ? new Date(record.updatedAt) : undefined,
    endCode: ended ? record.endedReason : undefined,
  };
}
