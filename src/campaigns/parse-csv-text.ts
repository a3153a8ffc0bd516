import { type CsvError, parse } from 'csv-parse/sync';

/** What csv-parse read in a text: its records, the line each ends on, and the errors it skipped. */
export interface ParsedCsv {
  records: string[][];
  /** The line (from 1, in the text) each record ends on. */
  endLines: number[];
  errors: CsvError[];
}

/**
 * Reads CSV text with csv-parse, values as strings and rows as arrays: quotes are read leniently
 * unless `strict` (`relax_quotes`: a quote inside an unquoted value is text, and so is one that
 * closes a value without a comma after it), the number of values is left to the caller to check
 * against its header, rows end at `\n` only, and a record that cannot be read is skipped and
 * its error kept.
 *
 * @example
 * parseCsvText('33612345678,"Smith, Ana"\n33612345679,Bob').records; // [['33612345678', 'Smith, Ana'], ['33612345679', 'Bob']]
 */
export function parseCsvText(text: string, strict = false): ParsedCsv {
  const errors: CsvError[] = [];
  const found = parse(text, {
    relax_quotes: !strict,
    relax_column_count: true,
    record_delimiter: '\n',
    info: true,
    skip_records_with_error: true,
    on_skip: (error) => {
      if (error) errors.push(error);
      return undefined;
    },
  }) as unknown as Array<{ record: string[]; info: { lines: number } }>;
  return {
    records: found.map((each) => each.record),
    endLines: found.map((each) => each.info.lines),
    errors,
  };
}

/** The one record `text` reads as, or undefined when it reads as none, several or an error. */
export function onlyCsvRecord(text: string, strict = false): string[] | undefined {
  const parsed = parseCsvText(text, strict);
  return parsed.errors.length === 0 && parsed.records.length === 1 ? parsed.records[0] : undefined;
}
