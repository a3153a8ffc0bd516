import type { OutboundEvent } from '../events/outbound-event.ts';
import { storableJson } from './storable-json.ts';

/**
 * Who put a phone on a location's suppression list: the phone itself, texting an opt-out
 * keyword (`stop`), a file imported with `replyflow suppressions import` (`import`), or the
 * admin API (`api`).
 */
export type SuppressionSource = 'stop' | 'import' | 'api';

/** A phone on a location's suppression list: it is sent nothing until it opts in again. */
export interface Suppression {
  /** Digits with the country prefix (`33612345678`). */
  phone: string;
  /** When the phone opted out (ms). */
  at: number;
  /** Why: the keyword texted (`STOP`), or what the import said. */
  reason?: string;
  /** Absent on entries written before the source was kept (all of them opt-outs by keyword). */
  source?: SuppressionSource;
}

/**
 * What an import gives for one phone; `addSuppressions` adds the source. `event`: its `optout`
 * outbound event (issue 24), queued with the entry when it is added (not when it was there).
 */
export type SuppressionEntry = Pick<Suppression, 'phone' | 'at' | 'reason'> & {
  event?: OutboundEvent;
};

/** What `addSuppressions` did: entries it wrote, and entries already there (kept as they were). */
export interface SuppressionsAdded {
  added: number;
  existing: number;
}

/**
 * The stored value of a suppression, `{ at, reason?, source? }` (both drivers): the earlier
 * form `{ at }` stays readable.
 */
export function suppressionValue(entry: Omit<Suppression, 'phone'>): string {
  return storableJson({
    at: entry.at,
    ...(entry.reason !== undefined && entry.reason !== '' && { reason: entry.reason }),
    ...(entry.source !== undefined && { source: entry.source }),
  });
}

/** A suppression read back from its stored value; a value that is no JSON object reads as `at: 0`. */
export function suppressionOf(phone: string, stored: string): Suppression {
  let value: { at?: unknown; reason?: unknown; source?: unknown } = {};
  try {
    const parsed: unknown = JSON.parse(stored);
    if (typeof parsed === 'object' && parsed !== null) value = parsed;
  } catch {
    // A hand-written key (`SET … 1`) still suppresses: the sender checks only that it exists.
    value = {};
  }
  const source = value.source;
  return {
    phone,
    at: typeof value.at === 'number' ? value.at : 0,
    ...(typeof value.reason === 'string' && { reason: value.reason }),
    ...((source === 'stop' || source === 'import' || source === 'api') && { source }),
  };
}
