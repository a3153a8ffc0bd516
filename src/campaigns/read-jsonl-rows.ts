import { maskPhonesInText } from '../observability/mask-phones-in-text.ts';
import type { TextLine } from './read-lines.ts';
import type { SourceRow } from './source-row.ts';

/**
 * Reads JSON lines: each line one JSON object, its fields the row's values as JSON gives them.
 * A blank line is no row; a line that is not a JSON object is a `problem` at its line, and
 * reading goes on.
 *
 * @example
 * for await (const rows of readJsonlRows(readLines(stream))) …
 */
export async function* readJsonlRows(
  source: AsyncIterable<TextLine[]>,
): AsyncGenerator<SourceRow[]> {
  for await (const lines of source) {
    const rows: SourceRow[] = [];
    for (const { number, text } of lines) {
      if (text === undefined)
        rows.push({ line: number, problem: 'the line is too long to be a row' });
      else if (text.trim() !== '') rows.push(rowOf(number, text));
    }
    if (rows.length > 0) yield rows;
  }
}

function rowOf(line: number, text: string): SourceRow {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // The parser's message quotes the line, and the line may hold a phone number.
    return { line, problem: `the line is not JSON: ${maskPhonesInText((error as Error).message)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      line,
      problem:
        'the line is not a JSON object: write one object a line, such as {"phone": "+33612345678"}',
    };
  }
  return { line, values: value as Record<string, unknown> };
}
