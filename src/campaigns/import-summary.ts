import type { ExcludedRow, Recipient, RecipientExclusion } from './read-recipients.ts';
import { toZonedIso } from './zoned-iso.ts';

/** Why a row is not sent to: what the reader found, or `opted_out`, which the store knows. */
export type ExclusionReason = RecipientExclusion | 'opted_out';

/** A row that is not sent to, whoever found why (`opted_out`: the caller, from its store). */
export interface ExcludedImportRow {
  readonly line: number;
  readonly excluded: ExclusionReason;
  readonly message: string;
}

/** One of the first rows, as a dry run shows it: when it is sent, in its own time, or why not. */
export type PreviewRow =
  | {
      line: number;
      phone: string;
      /** The send time as ISO 8601 on the recipient's wall clock (`2027-12-05T09:00:00+01:00`). */
      at: string;
      timeZone: string;
      input: unknown;
    }
  | { line: number; excluded: ExclusionReason; message: string };

/** What an import (or its dry run) made of a file. */
export interface ImportSummary {
  /** Data rows read: `accepted + excluded`. */
  rows: number;
  accepted: number;
  excluded: number;
  /** Excluded rows per reason, every reason present (0 when none). */
  byReason: Record<ExclusionReason, number>;
  /** The first rows of the file, in order (`previewRows`, default 10). */
  preview: PreviewRow[];
  /** The earliest and latest send times of the accepted rows, ms. */
  firstSendAt: number | undefined;
  lastSendAt: number | undefined;
}

export interface ImportSummaryBuilder {
  /** Counts one row, once: a recipient, or an exclusion (the reader's, or `opted_out`). */
  add(row: Recipient | ExcludedRow | ExcludedImportRow): void;
  /** The summary so far (a copy: adding more rows does not change it). */
  summary(): ImportSummary;
}

/**
 * Adds up the rows of an import or its dry run, in constant memory: totals, exclusions by
 * reason, the first `previewRows` rows, the span of the send times. The caller adds each row
 * once: a recipient the store finds opted out is added as `{ line, excluded: 'opted_out', … }`
 * instead of as itself.
 *
 * @example
 * const builder = createImportSummary();
 * for await (const row of readRecipients(file, options)) builder.add(row);
 * const { rows, byReason, preview } = builder.summary();
 */
export function createImportSummary(options: { previewRows?: number } = {}): ImportSummaryBuilder {
  const previewRows = options.previewRows ?? 10;
  const byReason: Record<ExclusionReason, number> = {
    bad_phone: 0,
    bad_input: 0,
    bad_date: 0,
    past_due: 0,
    duplicate: 0,
    opted_out: 0,
  };
  const preview: PreviewRow[] = [];
  let accepted = 0;
  let excluded = 0;
  let firstSendAt: number | undefined;
  let lastSendAt: number | undefined;
  return {
    add(row) {
      if ('excluded' in row) {
        excluded++;
        byReason[row.excluded]++;
        if (preview.length < previewRows) {
          preview.push({ line: row.line, excluded: row.excluded, message: row.message });
        }
        return;
      }
      accepted++;
      if (firstSendAt === undefined || row.at < firstSendAt) firstSendAt = row.at;
      if (lastSendAt === undefined || row.at > lastSendAt) lastSendAt = row.at;
      if (preview.length < previewRows) {
        const { line, phone, timeZone, input } = row;
        preview.push({ line, phone, at: toZonedIso(row.at, timeZone), timeZone, input });
      }
    },
    summary() {
      return {
        rows: accepted + excluded,
        accepted,
        excluded,
        byReason: { ...byReason },
        preview: [...preview],
        firstSendAt,
        lastSendAt,
      };
    },
  };
}
