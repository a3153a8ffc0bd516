import type { Writable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { Store } from '../store/store.ts';
import type { Suppression } from '../store/suppression.ts';

/** `csv`: phone,at,reason,source with a header line; `ndjson`: one JSON object a line. */
export type SuppressionFormat = 'csv' | 'ndjson';

/** The CSV columns, in order: what `importSuppressions` reads back (source aside). */
export const suppressionColumns = ['phone', 'at', 'reason', 'source'] as const;

/**
 * Streams a location's suppression list to `out`, a store batch at a time, waiting for `out`
 * to drain (a slow reader holds the reading, not memory). Times are ISO 8601 UTC, empty when
 * unknown. Resolves to the number of entries written; `out` is left open. A reader that goes
 * away (`out` closed) ends it early.
 *
 * @example
 * await writeSuppressions(store, 'paris', process.stdout, 'csv');
 * // phone,at,reason,source
 * // 33612345678,2026-03-01T09:30:00.000Z,STOP,stop
 */
export async function writeSuppressions(
  store: Pick<Store, 'listSuppressions'>,
  location: string,
  out: Writable,
  format: SuppressionFormat,
): Promise<number> {
  let count = 0;
  if (format === 'csv' && !(await write(out, stringify([[...suppressionColumns]])))) return 0;
  for await (const batch of store.listSuppressions(location)) {
    const rows = batch.map(shown);
    const text =
      format === 'csv'
        ? stringify(
            rows.map((row) => suppressionColumns.map((column) => row[column] ?? '')),
            // A reason that starts like a formula (`=`, `+`, `-`, `@`) is not one in a spreadsheet.
            { escape_formulas: true },
          )
        : rows.map((row) => `${JSON.stringify(row)}\n`).join('');
    // A reader that went away stops the reading.
    if (!(await write(out, text))) break;
    count += rows.length;
  }
  return count;
}

/** An entry as exported: its time in ISO 8601 (none when the entry does not know it). */
function shown(
  entry: Suppression,
): Record<(typeof suppressionColumns)[number], string | undefined> {
  return {
    phone: entry.phone,
    at: entry.at > 0 ? new Date(entry.at).toISOString() : undefined,
    reason: entry.reason,
    source: entry.source,
  };
}

/** Writes, waiting for a full `out` to drain; false when `out` is closed (nothing more goes). */
async function write(out: Writable, text: string): Promise<boolean> {
  if (out.destroyed || out.writableEnded) return false;
  if (!out.write(text)) {
    await new Promise<void>((resolve) => {
      // Both listeners go once one fired: a long export waits thousands of times.
      const done = () => {
        out.off('drain', done);
        out.off('close', done);
        resolve();
      };
      out.on('drain', done);
      out.on('close', done);
    });
  }
  return !out.destroyed;
}
