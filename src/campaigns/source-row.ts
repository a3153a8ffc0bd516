/**
 * A data row of a recipient file, as its format reader gives it: the values by column (CSV,
 * strings, an empty cell absent) or field (JSON lines, any JSON value), or the reason the line
 * cannot be read. `line` is where the row starts in the file, from 1.
 */
export type SourceRow =
  | { readonly line: number; readonly values: Readonly<Record<string, unknown>> }
  | { readonly line: number; readonly problem: string };
