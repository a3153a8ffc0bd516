import { type CsvError, parse } from 'csv-parse/sync';

/** What csv-parse read in a text: its records, and the errors of the records it skipped. */
export interface ParsedCsv {
  records: string[][];
  errors: CsvError[];
}

/**
 * Reads CSV text with csv-parse, values as strings and rows as arrays: quotes are read leniently
 * unless `strict` (`relax_quotes`: a quote inside an unquoted value is text, and so is one that
 * closes a value without a comma after it), the number of values is left to the caller to check
 * against its header, rows end at `\n` only, and a record that cannot be read is skipped and
 * its error kept. csv-parse compares each record's width with the first one's, and builds an
 * error object for each that differs even when told to accept it: start the text with a line of
 * the expected width (the header), or a short row first costs every row after it.
 *
 * @example
 * parseCsvText('33612345678,"Smith, Ana"\n33612345679,Bob').records; // [['33612345678', 'Smith, Ana'], ['33612345679', 'Bob']]
 */
export function parseCsvText(text: string, strict = false): ParsedCsv {
  const errors: CsvError[] = [];
  const records = parse(text, {
    relax_quotes: !strict,
    relax_column_count: true,
    record_delimiter: '\n',
    skip_records_with_error: true,
    on_skip: (error) => {
      if (error) errors.push(error);
      return undefined;
    },
  });
  return { records, errors };
}

/** The one record `text` reads as, or undefined when it reads as none, several or an error. */
export function onlyCsvRecord(text: string, strict = false): string[] | undefined {
  const parsed = parseCsvText(text, strict);
  return parsed.errors.length === 0 && parsed.records.length === 1 ? parsed.records[0] : undefined;
}
