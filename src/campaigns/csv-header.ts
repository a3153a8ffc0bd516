import { errorCodes, ValidationError } from '../errors.ts';

/**
 * The column names a CSV header gives, trimmed. Throws a `ValidationError` (`INPUT_INVALID`)
 * that refuses the whole file when a column has no name, a name comes twice, or a column the
 * campaign reads (`required`) is missing: every row would be read wrong.
 *
 * @example
 * csvHeader(['phone', ' name '], 1, ['phone']); // ['phone', 'name']
 * csvHeader(['mobile', 'name'], 1, ['phone']); // throws: the header (line 1) has no column 'phone'; …
 */
export function csvHeader(
  fields: readonly string[],
  line: number,
  required: readonly string[],
): string[] {
  const names = fields.map((name) => name.trim());
  const refuse = (why: string) =>
    new ValidationError(errorCodes.INPUT_INVALID, `the header (line ${line}) ${why}`);
  const unnamed = names.indexOf('');
  if (unnamed !== -1) throw refuse(`has no name for column ${unnamed + 1}: name it or remove it`);
  const repeated = names.find((name, i) => names.indexOf(name) !== i);
  if (repeated !== undefined) throw refuse(`names '${repeated}' twice`);
  const missing = required.filter((name) => !names.includes(name));
  if (missing.length > 0) {
    const list = (all: readonly string[]) => all.map((name) => `'${name}'`).join(', ');
    throw refuse(`has no column ${list(missing)}; its columns are ${list(names)}`);
  }
  return names;
}
