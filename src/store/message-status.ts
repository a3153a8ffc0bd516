import { type MessageRecord, statusRank } from './records.ts';
import type { IngestItem } from './store.ts';

/** The fields of a message record that `sms.status` notifications own. */
export const statusFields = [
  'status',
  'statusReason',
  'parts',
  'price',
  'createdAt',
  'updatedAt',
] as const satisfies readonly (keyof NonNullable<IngestItem['status']>)[];

/**
 * The message record a status item writes: its event's key and sms id plus the status fields.
 * Over an existing record it is merged field by field, so what `recordSent` wrote (run, bot)
 * stays.
 */
export function statusRecordOf(
  item: IngestItem & { status: NonNullable<IngestItem['status']> },
): MessageRecord {
  const { event } = item;
  if (event.kind !== 'status') {
    throw new TypeError(
      `item '${event.id}' carries a status update but is a '${event.kind}' event`,
    );
  }
  return {
    v: 1,
    location: event.location,
    phone: event.phone,
    smsId: event.smsId,
    ...(event.outboxId === undefined ? {} : { outboxId: event.outboxId }),
    ...item.status,
  };
}

/**
 * What `recordSent` stores over a record an earlier status notification may have written: the
 * status fields of the record ranked at least as far along win (the existing one on a tie),
 * the rest comes from the new record. The Redis driver does the same in `record-sent-13.lua`.
 */
export function mergeSentRecord(
  existing: MessageRecord | null,
  record: MessageRecord,
): MessageRecord {
  if (!existing) return record;
  if (statusRank[existing.status] < statusRank[record.status]) return { ...existing, ...record };
  const merged: Record<string, unknown> = { ...record };
  for (const field of statusFields) {
    if (existing[field] !== undefined) merged[field] = existing[field];
  }
  return merged as unknown as MessageRecord;
}
