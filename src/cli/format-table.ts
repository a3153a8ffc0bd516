type Cell = string | number | boolean | null | undefined | readonly string[];

/**
 * A small aligned table for people: a header row, then one row per item, columns padded to
 * their widest cell. Lists are joined with commas; missing values show as `-`.
 *
 * @example
 * formatTable([{ id: 7, name: 'VIP' }], ['id', 'name']);
 * // id  name
 * // 7   VIP
 */
export function formatTable<Row extends Record<string, Cell>>(
  rows: readonly Row[],
  columns: readonly (keyof Row & string)[],
): string {
  if (rows.length === 0) return '(none)';
  const cells = [columns, ...rows.map((row) => columns.map((column) => show(row[column])))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i]?.length ?? 0)));
  return cells
    .map((line) =>
      line
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** One item as aligned `key  value` lines, for `get` and `create` commands; undefined is left out. */
export function formatRecord(record: Record<string, Cell>): string {
  const entries = Object.entries(record).filter(([, value]) => value !== undefined);
  const width = Math.max(...entries.map(([key]) => key.length));
  return entries.map(([key, value]) => `${key.padEnd(width)}  ${show(value)}`.trimEnd()).join('\n');
}

function show(value: Cell): string {
  if (value === undefined || value === null) return '-';
  if (Array.isArray(value)) return value.join(',');
  return String(value);
}
