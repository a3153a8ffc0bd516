import { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import type { CountryCode } from 'libphonenumber-js/max';
import { decodeText } from '../campaigns/read-lines.ts';
import { errorCodes, ValidationError } from '../errors.ts';
import { maskPhone } from '../observability/mask-phone.ts';
import { normalizePhone } from '../provider/normalize-phone.ts';
import type { Store } from '../store/store.ts';
import type { SuppressionEntry } from '../store/suppression.ts';
import { suppressionEvent } from './suppression-event.ts';

export interface ImportSuppressionsOptions {
  location: string;
  /** Who imports: `replyflow suppressions import` (`import`) or the admin API (`api`). */
  source: 'import' | 'api';
  /** For numbers written in national form (`06 12 34 56 78`): the location's `defaultCountry`. */
  defaultCountry?: string;
  /** The reason of the rows that have none (`--reason`). */
  reason?: string;
  /** The time of the rows with no `at` column (ms). */
  now: number;
  /** Told of each row left out, as it is read: its line in the file and why (phone masked). */
  onRejected?: (rejected: RejectedRow) => void;
  /** Rows per store call (default 500). */
  batchSize?: number;
  /**
   * Queue an `optout` outbound event for each phone put on the list (the location has
   * subscriptions that want it), with the entry in the store: none for a phone already there.
   */
  optoutEvents?: boolean;
}

/** A row left out of an import: its line (1 is the header) and why. */
export interface RejectedRow {
  line: number;
  reason: string;
}

export interface ImportSummary {
  /** Phones put on the list. */
  imported: number;
  /** Phones already on it (left as they were, time and reason included). */
  existing: number;
  /** Rows left out (each told to `onRejected`). */
  rejected: number;
}

/** The longest reason kept: a note, not a document. */
export const maxReasonLength = 200;

/**
 * Reads a CSV of opt-outs (a `phone` column, optional `reason` and `at` ISO 8601 columns, any
 * others ignored; a BOM and the header's case and spaces do not matter; UTF-8, or UTF-16 after
 * its byte order mark, as a campaign's file) as a stream, and puts
 * each phone on the location's suppression list, in batches: the file is never held whole.
 * A row whose phone, time or reason cannot be used is left out and told to `onRejected`; the
 * others are imported. With `optoutEvents`, each phone put on the list (not one already there)
 * has its `optout` outbound event queued with it. A file with no `phone` column is refused (`ValidationError`
 * `INPUT_INVALID`) before anything is written. Numbers are read as a reply's `from` is (any
 * valid or possible number, `defaultCountry` for the national form): an opt-out too many
 * harms nobody.
 *
 * @example
 * await importSuppressions(store, createReadStream('optouts.csv'), { location: 'paris', source: 'import', defaultCountry: 'FR', now: Date.now() });
 * // { imported: 1998, existing: 2, rejected: 1 }
 */
export async function importSuppressions(
  store: Pick<Store, 'addSuppressions'>,
  input: Readable,
  options: ImportSuppressionsOptions,
): Promise<ImportSummary> {
  const summary: ImportSummary = { imported: 0, existing: 0, rejected: 0 };
  const batchSize = options.batchSize ?? 500;
  // No `bom` option: decodeText (below) has dropped the byte order mark.
  const parser = parse({
    columns: headerOf,
    info: true,
    skip_empty_lines: true,
    relax_column_count: true,
    trim: true,
    // A stray quote must not make one record of the rest of the file.
    max_record_size: 64 * 1024,
  });
  // Read as a campaign's file is: UTF-8, or UTF-16 after its byte order mark.
  const text = Readable.from(decodeText(input));
  text.once('error', (error) => parser.destroy(error));
  let batch: SuppressionEntry[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const { added, existing } = await store.addSuppressions(
      options.location,
      batch,
      options.source,
    );
    summary.imported += added;
    summary.existing += existing;
    batch = [];
  };
  const reject = (line: number, reason: string) => {
    summary.rejected += 1;
    options.onRejected?.({ line, reason });
  };
  // The last line read whole: where a file that cannot be read on is cut.
  let lastLine = 1;
  try {
    for await (const { record, info } of text.pipe(parser) as AsyncIterable<{
      record: Record<string, string | undefined>;
      info: { lines: number };
    }>) {
      lastLine = info.lines;
      const entry = entryOf(record, options);
      if (typeof entry === 'string') reject(info.lines, entry);
      else batch.push(entry);
      if (batch.length >= batchSize) await flush();
    }
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    // What was read before stays imported: a repeat of the import is harmless.
    await flush();
    const why =
      error.code === 'CSV_MAX_RECORD_SIZE'
        ? 'a row over 64 KiB, most likely a quote left open'
        : error.message;
    throw new ValidationError(
      errorCodes.INPUT_INVALID,
      `the CSV cannot be read after line ${lastLine} (${why}); the rows up to it are imported: fix the file and import it again`,
    );
  }
  await flush();
  return summary;
}

/** The header's column names, case and spaces aside; refused (before any row) without `phone`. */
function headerOf(header: string[]): string[] {
  const names = header.map((name) => name.trim().toLowerCase());
  if (!names.includes('phone')) {
    throw new ValidationError(
      errorCodes.INPUT_INVALID,
      `the CSV has no 'phone' column in its first line: write a header line such as phone,reason,at`,
      'phone',
    );
  }
  return names;
}

/** A row as an entry, or why it cannot be one. */
function entryOf(
  record: Record<string, string | undefined>,
  options: ImportSuppressionsOptions,
): SuppressionEntry | string {
  const written = record.phone ?? '';
  if (written === '') return 'no phone';
  let phone: string;
  try {
    phone = normalizePhone(written, {
      defaultCountry: options.defaultCountry as CountryCode | undefined,
      accept: 'reply',
    });
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const masked = maskPhone(written);
    const hint = options.defaultCountry
      ? ''
      : ' (write it with its country prefix: +33 6 12 34 56 78)';
    return `${masked ? `phone ${masked}` : 'the phone'} is not a phone number${hint}`;
  }
  const at = record.at ? Date.parse(record.at) : options.now;
  // The value is not echoed: in a shifted row it may be someone's number.
  if (Number.isNaN(at)) return 'at is not an ISO 8601 date such as 2026-03-01T09:30:00Z';
  if (at > options.now) return 'at is in the future';
  const reason = record.reason || options.reason;
  if (reason !== undefined && reason.length > maxReasonLength) {
    return `reason is longer than ${maxReasonLength} characters`;
  }
  const entry = { phone, at, ...(reason && { reason }) };
  if (!options.optoutEvents) return entry;
  const payload = {
    source: options.source,
    optedOutAt: new Date(at).toISOString(),
    ...(reason && { reason }),
  };
  return {
    ...entry,
    event: suppressionEvent('optout', options.location, phone, options.now, payload),
  };
}
