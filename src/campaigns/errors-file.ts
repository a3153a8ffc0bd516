import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import type { ExcludedImportRow } from './import-summary.ts';

/** The excluded rows of an import, written as they come. */
export interface ErrorsFile {
  /** Appends a row; resolves at once unless the disk is behind (then when it caught up). */
  write(row: ExcludedImportRow): Promise<void>;
  /** Writes what is left and closes the file. */
  close(): Promise<void>;
  /** Rows written so far. */
  readonly rows: number;
}

/**
 * Opens (or replaces) a CSV file of excluded rows, `line,reason,message`, for the operator to
 * fix and import again. Streamed: however many rows, only what the disk has not taken yet is
 * held. A value starting with `=`, `+`, `-` or `@` is escaped so that a spreadsheet shows it
 * rather than runs it. Rejects when the file cannot be opened.
 *
 * @example
 * const errors = await openErrorsFile('december-errors.csv');
 * for await (const row of readRecipients(file, options)) if ('excluded' in row) await errors.write(row);
 * await errors.close();
 */
export async function openErrorsFile(path: string): Promise<ErrorsFile> {
  const file = createWriteStream(path);
  await once(file, 'open');
  const csv = stringify({
    header: true,
    columns: ['line', 'reason', 'message'],
    escape_formulas: true,
  });
  const written = pipeline(csv, file);
  // Kept for the next write() (close() awaits it anyway): a disk full must stop the import.
  let failure: unknown;
  written.catch((error: unknown) => {
    failure = error;
  });
  let rows = 0;
  return {
    async write(row) {
      if (failure !== undefined) throw failure;
      rows++;
      if (!csv.write([row.line, row.excluded, row.message])) await once(csv, 'drain');
    },
    async close() {
      csv.end();
      await written;
    },
    get rows() {
      return rows;
    },
  };
}
