import type { MessageRecord } from '../records.ts';
import { storableJson } from '../storable-json.ts';

/**
 * How a message record is kept on Redis: one plain string, `<rank><sent>` then the record JSON
 * with short field names (`storedField`), less its sms id (the key says it) and its phone
 * (every reader knows it: the record lives in its phone's partition). `rank` is the status
 * rank (`statusRank`, one digit) and `sent` '1' once `recordSent` wrote it, so the scripts read
 * both without decoding JSON. A string costs less than the hash it replaces (which went past
 * the listpack limit), and the short names save about a third of the JSON.
 */
export const storedField = {
  v: 'v',
  location: 'l',
  status: 's',
  statusReason: 'r',
  runId: 'u',
  botId: 'b',
  outboxId: 'o',
  encoding: 'e',
  parts: 'n',
  price: 'p',
  createdAt: 'c',
  updatedAt: 't',
} as const satisfies Record<Exclude<keyof MessageRecord, 'smsId' | 'phone'>, string>;

const fieldOf = Object.fromEntries(
  Object.entries(storedField).map(([field, stored]) => [stored, field]),
) as Record<string, string>;

/** The stored JSON of a record (or of a status's fields, which ingest merges into one). */
export function messageBody(record: Partial<MessageRecord>): string {
  const stored: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(record)) {
    if (field === 'smsId' || field === 'phone' || value === undefined) continue;
    stored[(storedField as Record<string, string>)[field] ?? field] = value;
  }
  return storableJson(stored);
}

/**
 * Reads a stored message record; null for none (`''` or nil from a script). A record from a
 * conversation value's messages line leaves out `v` and the location (the conversation's).
 */
export function messageRecordOf(
  stored: unknown,
  smsId: string,
  phone: string,
  location?: string,
): MessageRecord | null {
  if (stored === '' || stored === null || stored === undefined || stored === false) return null;
  if (typeof stored !== 'string') {
    throw new Error(`unexpected Redis reply ${String(stored)}: expected a message record`);
  }
  const record: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(JSON.parse(stored.slice(2)) as object)) {
    record[fieldOf[name] ?? name] = value;
  }
  const defaults = { v: 1 as const, ...(location !== undefined && { location }) };
  return { ...defaults, ...(record as Omit<MessageRecord, 'smsId' | 'phone'>), smsId, phone };
}
