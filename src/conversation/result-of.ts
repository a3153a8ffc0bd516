import type { ConversationRecord, ConversationResult } from '../store/records.ts';

/** A run's result as its record says it: ended (with `endedAt`) when the record is not active. */
export function resultOf(record: ConversationRecord): ConversationResult {
  const ended = record.status !== 'active';
  return {
    v: 1,
    location: record.location,
    phone: record.phone,
    runId: record.runId,
    bot: record.botId,
    botVersion: record.botVersion,
    startedAt: record.startedAt,
    ...(ended && { endedAt: record.updatedAt, endCode: record.endedReason ?? record.status }),
    fields: record.result ?? {},
    ...(record.campaign && { campaign: { name: record.campaign.name, row: record.campaign.row } }),
  };
}
