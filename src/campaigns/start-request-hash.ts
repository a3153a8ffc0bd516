import { createHash } from 'node:crypto';

/** What makes two API starts under one key the same request. */
export interface StartRequestParts {
  bot: string;
  input: unknown;
  /** The instant asked for (before the past policy and any hold), or `now` for a start now. */
  asked: number | 'now';
  deliveryWindow?: string | undefined;
  timeZone: string;
}

/**
 * A short hash of a start's request, kept in its record (`RecipientRecord.request`): a booking
 * system's retry is the same request whatever became of the start (fired, held, skipped late),
 * which the record's own time, moved by a hold, cannot tell. Object keys are sorted, so a retry
 * that writes the input's fields in another order is the same request.
 *
 * @example
 * startRequestHash({ bot: 'appointment', input: { at: '2027-12-06T09:00' }, asked: 1796540400000, timeZone: 'Europe/Paris' }); // '3f0c…' (16 hex digits)
 */
export function startRequestHash(parts: StartRequestParts): string {
  const json = JSON.stringify(
    [parts.bot, parts.input ?? {}, parts.asked, parts.deliveryWindow ?? null, parts.timeZone],
    sortKeys,
  );
  return createHash('sha256').update(json).digest('hex').slice(0, 16);
}

function sortKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
