/**
 * Compares what a doc shows a command printing with what it printed. Exact, but for the parts
 * no run can reproduce, which match any value of their shape:
 *
 * - `…` inside a line: any text on that line; a line that is only `…` or `...`: any lines;
 * - a UUID (an SMS, a webhook): any UUID. The first match binds the doc's value to the real one
 *   (`bindings`), so a later command or output that repeats the doc's id uses the real one;
 * - an ISO date-time of this year or before (a creation time; one in a later year is an input's
 *   date and is compared exactly), an HTTP `Date`, a log line's `[12:34:56.789]`, an epoch in
 *   milliseconds, a 12-digit hex bot version, an admin start's `k<hash>.<base36>` key id, and an
 *   import's speed (`in 0.0 s (172 rows/s)`).
 */

export interface MatchResult {
  ok: boolean;
  /** Doc values bound to real ones by this match (UUIDs). */
  bound: Map<string, string>;
}

const uuid = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const isoDateTime =
  '(\\d{4})-\\d{2}-\\d{2}T\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d+)?)?(?:Z|[+-]\\d{2}:\\d{2})';
const volatile = new RegExp(
  [
    `(?<ellipsis>…)`,
    `(?<uuid>${uuid})`,
    `(?<iso>${isoDateTime})`,
    `(?<httpDate>(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \\d{2} [A-Z][a-z]{2} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT)`,
    `(?<logTime>\\[\\d{2}:\\d{2}:\\d{2}\\.\\d{3}\\])`,
    `(?<epochMs>\\b1\\d{12}\\b)`,
    `(?<version>\\b[0-9a-f]{12}\\b)`,
    `(?<apiKeyId>\\bk[0-9a-f]{16,40}\\.[0-9a-z]+)`,
    `(?<speed>in \\d+(?:\\.\\d+)? s \\(\\d+ rows/s\\))`,
  ].join('|'),
  'g',
);

const anyIso = isoDateTime.replace('(\\d{4})', '\\d{4}');
const fragments: Record<string, string> = {
  ellipsis: '[^\\n]*?',
  iso: anyIso,
  httpDate: '[A-Z][a-z]{2}, \\d{2} [A-Z][a-z]{2} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT',
  logTime: '\\[\\d{2}:\\d{2}:\\d{2}\\.\\d{3}\\]',
  epochMs: '\\d{13}',
  version: '[0-9a-f]{12}',
  apiKeyId: 'k[0-9a-f]+\\.[0-9a-z]+',
  speed: 'in \\d+(?:\\.\\d+)? s \\(\\d+ rows/s\\)',
};

/** Text as a terminal would show it: no colours, no carriage returns, no trailing blanks. */
export function normalizeOutput(text: string): string {
  return (
    text
      // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes
      .replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '')
      .replace(/\r\n?/g, '\n')
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n')
      .replace(/^\n+|\n+$/g, '')
  );
}

export function matchOutput(
  expected: string,
  actual: string,
  bindings: ReadonlyMap<string, string>,
  options: { unordered?: boolean; now?: Date } = {},
): MatchResult {
  if (options.unordered) return matchUnordered(expected, actual, bindings, options.now);
  const now = options.now ?? new Date();
  // A doc that shows nothing after a command does not say what it prints.
  if (normalizeOutput(expected) === '') return { ok: true, bound: new Map() };
  const thisYear = now.getUTCFullYear();
  const groups: string[] = [];
  const seen = new Map<string, number>();
  const parts: string[] = [];
  for (const line of normalizeOutput(expected).split('\n')) {
    if (line.trim() === '…' || line.trim() === '...') {
      parts.push('(?:[^\\n]*\\n)*?');
      continue;
    }
    let pattern = '';
    let last = 0;
    for (const match of line.matchAll(volatile)) {
      pattern += escapeRegExp(line.slice(last, match.index));
      last = match.index + match[0].length;
      const kind = Object.entries(match.groups!).find(([, value]) => value !== undefined)![0];
      if (kind === 'uuid') {
        const value = match[0];
        const known = bindings.get(value);
        if (known !== undefined) pattern += escapeRegExp(known);
        else if (seen.has(value)) pattern += `\\${seen.get(value)}`;
        else {
          groups.push(value);
          seen.set(value, groups.length);
          pattern += `(${uuid})`;
        }
      } else if (kind === 'iso' && Number(match.groups!.iso!.slice(0, 4)) > thisYear) {
        pattern += escapeRegExp(match[0]);
      } else {
        pattern += fragments[kind]!;
      }
    }
    parts.push(`${pattern + escapeRegExp(line.slice(last))}\\n`);
  }
  const text = normalizeOutput(actual);
  const found = new RegExp(`^${parts.join('')}$`).exec(text === '' ? '' : `${text}\n`);
  const bound = new Map<string, string>();
  if (found) for (const [i, value] of groups.entries()) bound.set(value, found[i + 1]!);
  return { ok: found !== null, bound };
}

/**
 * Each line the doc shows matches a line of its own in the output, in any order; the output has
 * no other line unless the doc shows a `…` line.
 */
function matchUnordered(
  expected: string,
  actual: string,
  bindings: ReadonlyMap<string, string>,
  now: Date | undefined,
): MatchResult {
  const want = normalizeOutput(expected).split('\n');
  if (want.length === 1 && want[0] === '') return { ok: true, bound: new Map() };
  const got = normalizeOutput(actual).split('\n');
  const known = new Map(bindings);
  const bound = new Map<string, string>();
  const used = new Set<number>();
  const more = want.some((line) => line.trim() === '…' || line.trim() === '...');
  for (const line of want) {
    if (line.trim() === '…' || line.trim() === '...') continue;
    const at = got.findIndex((g, i) => !used.has(i) && matchOutput(line, g, known, { now }).ok);
    if (at < 0) return { ok: false, bound: new Map() };
    used.add(at);
    for (const [doc, real] of matchOutput(line, got[at]!, known, { now }).bound) {
      known.set(doc, real);
      bound.set(doc, real);
    }
  }
  return { ok: more || used.size === got.length, bound };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Replaces each bound doc value in `text` by its real one. */
export function applyBindings(text: string, bindings: ReadonlyMap<string, string>): string {
  let result = text;
  for (const [doc, real] of bindings) result = result.split(doc).join(real);
  return result;
}

/** The first line of `expected` that the same line of `actual` does not match, for a report. */
export function firstDifference(expected: string, actual: string): string {
  const want = normalizeOutput(expected).split('\n');
  const got = normalizeOutput(actual).split('\n');
  for (let i = 0; i < Math.max(want.length, got.length); i++) {
    const w = want[i] ?? '(nothing)';
    const g = got[i] ?? '(nothing)';
    if (w === '…' || w === '...') return `from line ${i + 1}, after a '…' line`;
    if (!matchOutput(w, g, new Map()).ok) return `line ${i + 1}:\n  doc:    ${w}\n  actual: ${g}`;
  }
  return 'the whole output';
}
