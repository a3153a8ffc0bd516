import { errorCodes, ValidationError } from '../errors.ts';
import { csvHeader } from './csv-header.ts';
import { endsInQuotes } from './ends-in-quotes.ts';
import { onlyCsvRecord, parseCsvText } from './parse-csv-text.ts';
import type { TextLine } from './read-lines.ts';
import { setOwn } from './set-own.ts';
import type { SourceRow } from './source-row.ts';

export interface ReadCsvRowsOptions {
  /** Columns the header must name (the phone column, the date column): else the file is refused. */
  requiredColumns?: readonly string[];
  /** The most lines a row may span with a quoted value in it (default 20). */
  maxRowLines?: number;
}

const unpaired =
  'the row has double quotes that do not pair up: a quoted value ends with a quote followed by a comma or the end of the line';

/**
 * Reads CSV rows, a batch per batch of lines. The first row names the columns (see `csvHeader`);
 * each later row becomes its values by column, an empty cell absent. csv-parse reads the values.
 * A row that cannot be read is a `problem` at its line (a wrong number of values, a quote left
 * open, a line too long) and reading goes on. csv-parse alone, after a quote left open, takes
 * every line up to the next quote into the value, so rows are cut here first (`endsInQuotes`):
 * a row that spans lines but does not read as one costs its first line, and the lines after it
 * are read again as rows.
 *
 * @example
 * for await (const rows of readCsvRows(readLines(stream), { requiredColumns: ['phone'] })) …
 */
export async function* readCsvRows(
  source: AsyncIterable<TextLine[]>,
  options: ReadCsvRowsOptions = {},
): AsyncGenerator<SourceRow[]> {
  const maxRowLines = options.maxRowLines ?? 20;
  let header: { names: string[]; line: number; text: string } | undefined;
  let out: SourceRow[] = [];
  // Rows on one line each, given to csv-parse together at the end of each batch.
  let single: TextLine[] = [];
  // The lines of a row whose quoted value is still open.
  let open: TextLine[] = [];

  const accept = (line: number, fields: string[], text: string) => {
    if (!header) {
      header = { names: csvHeader(fields, line, options.requiredColumns ?? []), line, text };
    } else if (fields.length !== header.names.length) {
      reject(
        line,
        `the row has ${fields.length} values where the header (line ${header.line}) names ${header.names.length} columns: a value holding a comma must be in double quotes`,
      );
    } else {
      const values: Record<string, string> = {};
      for (let i = 0; i < fields.length; i++) {
        if (fields[i] !== '') setOwn(values, header.names[i]!, fields[i]!);
      }
      out.push({ line, values });
    }
  };
  const reject = (line: number, problem: string) => {
    if (!header) {
      const message = `the header, line ${line}, cannot be read: ${problem}`;
      throw new ValidationError(errorCodes.INPUT_INVALID, message);
    }
    out.push({ line, problem });
  };
  const flush = () => {
    if (single.length === 0) return;
    const lines = single;
    single = [];
    // After the header's own line (see parseCsvText): the records are then one per line from 1.
    const texts = lines.map((line) => line.text);
    const together = parseCsvText(
      header ? `${header.text}\n${texts.join('\n')}` : texts.join('\n'),
    );
    const first = header ? 1 : 0;
    // No line holds a line break outside quotes, so as many records as lines, without an
    // error, is one record per line, in order.
    const inStep = together.errors.length === 0 && together.records.length === lines.length + first;
    for (let i = 0; i < lines.length; i++) {
      const { number, text } = lines[i]!;
      // A batch csv-parse cut otherwise than endsInQuotes did is read again line by line.
      const fields = inStep ? together.records[i + first] : onlyCsvRecord(text!);
      if (fields) accept(number, fields, text!);
      else reject(number, unpaired);
    }
  };
  const refuse = (lines: TextLine[], problem: string) => {
    open = [];
    flush();
    reject(lines[0]!.number, problem);
    // The lines it took may be rows of their own.
    for (const line of lines.slice(1)) step(line);
  };
  const step = (line: TextLine): void => {
    if (open.length === 0) {
      if (line.text === undefined) {
        flush();
        reject(line.number, 'the line is too long to be a row');
      } else if (line.text !== '' && !endsInQuotes(line.text, false)) {
        single.push(line);
        if (!header) flush();
      } else if (line.text !== '') {
        open = [line];
      }
      return;
    }
    if (line.text === undefined) {
      refuse(
        open,
        `the row opens a quoted value not closed before line ${line.number}, too long to read`,
      );
      step(line);
      return;
    }
    open.push(line);
    if (!endsInQuotes(line.text, true)) {
      const lines = open;
      open = [];
      // Read strictly: leniently, a quote left open lines ago and a later quote that closes it
      // with text after it (`,"open` … `,"Smith, Dan"`) often make one row of the right width.
      const text = lines.map((each) => each.text).join('\n');
      const fields = onlyCsvRecord(text, true);
      if (fields && (!header || fields.length === header.names.length)) {
        flush();
        accept(lines[0]!.number, fields, text);
      } else {
        const count = fields
          ? ` (${fields.length} values, the header names ${header!.names.length})`
          : '';
        refuse(
          lines,
          `the row opens a quoted value that runs to line ${line.number} and does not read as one row${count}: is a quote missing?`,
        );
      }
    } else if (open.length >= maxRowLines) {
      refuse(
        open,
        `the row opens a quoted value not closed within ${maxRowLines} lines: is a quote missing?`,
      );
    }
  };

  for await (const lines of source) {
    for (const line of lines) step(line);
    flush();
    if (out.length > 0) {
      yield out;
      out = [];
    }
  }
  while (open.length > 0) {
    refuse(
      open,
      'the row opens a quoted value not closed by the end of the file: is a quote missing?',
    );
  }
  flush();
  if (!header) {
    const message =
      'the file has no header: its first line must name the columns, such as phone,name';
    throw new ValidationError(errorCodes.INPUT_INVALID, message);
  }
  if (out.length > 0) yield out;
}
