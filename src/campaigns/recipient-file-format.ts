import { ConfigError } from '../errors.ts';

/** How a recipient file is written: CSV with a header, or JSON lines (one object a line). */
export type RecipientFileFormat = 'csv' | 'jsonl';

/**
 * The format given, else the one the file name tells: `.jsonl` and `.ndjson` are JSON lines;
 * `.csv`, `.txt`, no extension or no name are CSV. Any other extension (`.xlsx`) throws a
 * `ConfigError` rather than read a spreadsheet as text.
 *
 * @example
 * recipientFileFormat({ fileName: 'december.jsonl' }); // 'jsonl'
 * recipientFileFormat({ fileName: 'december.xlsx' }); // throws: cannot tell the format of …
 */
export function recipientFileFormat(options: {
  format?: string | undefined;
  fileName?: string | undefined;
}): RecipientFileFormat {
  if (options.format !== undefined) {
    if (options.format === 'csv' || options.format === 'jsonl') return options.format;
    throw new ConfigError(`format '${options.format}' is not csv or jsonl`);
  }
  const name = options.fileName?.toLowerCase() ?? '';
  if (name.endsWith('.jsonl') || name.endsWith('.ndjson')) return 'jsonl';
  const extension = /\.[^./\\]+$/.exec(name)?.[0];
  if (extension === undefined || extension === '.csv' || extension === '.txt') return 'csv';
  throw new ConfigError(
    `cannot tell the format of '${options.fileName}': use a .csv or .jsonl file, or give the format (csv or jsonl)`,
  );
}
