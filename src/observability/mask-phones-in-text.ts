import { type DigitGroups, keptShapeAt, readDigitGroups } from './read-digit-groups.ts';

/**
 * What may stand between the digit groups of a written number: a space (a no-break one too), a
 * dot, a dash, or parentheses (`+1 (201) 555-0123`, `+33 (0)6 12 34 56 78`).
 */
const separator = String.raw`(?:[ .\-\u00A0\u202F]\(?|\)[ .\-\u00A0\u202F]?|\()`;

/**
 * A chain of digit groups joined by separators, with an optional leading `+` or `(`, that no
 * other digit touches: `33612345678`, `06 12 34 56 78`, `+1 (201) 555-0123`, and inside ids
 * (`crash-33612345678-2`). Digits of any script count (`٣٣٦١٢٣٤٥٦٧٨` is a number too, to a
 * person reading it). Linear: a group ends only where a digit run ends.
 */
const chain = new RegExp(String.raw`(?<!\p{Nd})[+(]?\p{Nd}+(?:${separator}\p{Nd}+)*`, 'gu');

/** A currency sign next to a number makes it an amount (`€ 23 456 789`, `23 456 789 €`). */
const currencyBefore = /\p{Sc} ?$/u;
const currencyAfter = /^ ?\p{Sc}/u;

/** Digits in one group beyond which a group is a number of its own (`crash-33612000001-3`). */
const longestGroup = 8;

/** Eight digits, maybe with separators between them: what a text needs to hold a number. */
const eightDigits = /\p{Nd}(?:[ .()\-\u00A0\u202F]{0,2}\p{Nd}){7}/u;
const oneRun = /^([+(]?)(\p{Nd}+)$/u;

/**
 * Masks every phone number in a text, as `maskPhone` does (`33612345678` → `336•••••678`):
 * what an error message quotes (`'33140000002' is a landline number`), a parser's excerpt of a
 * refused body, an id built from a number. A number written in groups (`06 12 34 56 78`,
 * `+1 (201) 555-0123`, `06.12.34.56.78`, `0033 6 12 34 56 78`) is masked whole, its separators
 * dropped (`061••••678`, `+120•••••123`). A phone number has 8 to 15 digits; dates, IPv4
 * addresses, year ranges, decimals, amounts and Unix times are left as they are.
 *
 * @example
 * maskPhonesInText("'33140000002' is a landline number"); // "'331•••••002' is a landline number"
 * maskPhonesInText('from +1 (201) 555-0123'); // "from +120•••••123"
 */
export function maskPhonesInText(text: string): string {
  if (!eightDigits.test(text)) return text;
  return text.replace(chain, (found: string, offset: number) => {
    if (found.length < 8) return found;
    const run = oneRun.exec(found);
    if (run && !run[1] && inHexToken(text, offset, offset + found.length)) return found;
    // Most numbers are one run of digits: masked without reading groups.
    const masked = run
      ? (maskDigits(run[1]!, Array.from(run[2]!), true) ?? found)
      : maskGroups(readDigitGroups(found), 0, Number.POSITIVE_INFINITY);
    if (masked === found) return found;
    const end = offset + found.length;
    const amount =
      currencyBefore.test(text.slice(Math.max(0, offset - 2), offset)) ||
      currencyAfter.test(text.slice(end, end + 2));
    return amount ? found : masked;
  });
}

/** A hash written in hex: 12 characters or more, all of one case, a letter among them. */
const hexToken = /^(?:[\da-f]*[a-f][\da-f]*|[\dA-F]*[A-F][\dA-F]*)$/;
const wordCharacter = /[\p{L}\p{Nd}]/u;

/**
 * Whether the digits from `start` to `end` are part of a hex hash (a bot's version
 * `eb64251454d9`, a sha), not a number: its digits are random, and eight of them in a row are
 * not rare. A number glued to other letters (`tel33612345678`), or with hex letters on one side
 * only (`ab33612345678`), is still masked.
 */
function inHexToken(text: string, start: number, end: number): boolean {
  let first = start;
  while (first > 0 && wordCharacter.test(text[first - 1]!)) first--;
  let last = end;
  while (last < text.length && wordCharacter.test(text[last]!)) last++;
  // Hex letters on both sides: a number glued to a word on one side is still a number.
  if (first === start || last === end) return false;
  return last - first >= 12 && hexToken.test(text.slice(first, last));
}

/** Groups `from` to `to` (or the last) of a chain, masked where they are a phone number. */
function maskGroups(groups: DigitGroups, from: number, upTo: number): string {
  const { digits } = groups;
  const to = Math.min(upTo, digits.length - 1);
  const original = spanOf(groups, from, to);
  let count = 0;
  for (let index = from; index <= to; index++) count += digits[index]!.length;
  if (count < 8) return original;
  if (from === to) return maskRun(groups, from, from);
  // A date, an address or a year range among the groups stays; the groups around it are read on.
  for (let index = from; index <= to; index++) {
    const size = keptShapeAt(groups, index, to);
    if (size > 0)
      return around(groups, from, index, index + size - 1, to, (a, b) => spanOf(groups, a, b));
  }
  if (isDecimal(groups, from, to)) return original;
  for (let index = from; index <= to; index++) {
    const followsPrefix = index === from + 1 && isCountryPrefix(groups, from);
    if (digits[index]!.length > longestGroup && !followsPrefix) {
      return around(groups, from, index, index, to, (a) => maskRun(groups, a, a));
    }
  }
  // After a country code and a trunk digit, a number's groups have two digits or more.
  for (let index = from + 3; index <= to; index++) {
    if (digits[index]!.length === 1) return original;
  }
  return maskRun(groups, from, to);
}

/** Groups `from`…`to`, with `first`…`last` written by `middle` and the groups around it masked. */
function around(
  groups: DigitGroups,
  from: number,
  first: number,
  last: number,
  to: number,
  middle: (first: number, last: number) => string,
): string {
  const { text, starts, ends } = groups;
  const before =
    first > from
      ? maskGroups(groups, from, first - 1) + text.slice(ends[first - 1], starts[first])
      : '';
  const after =
    last < to ? text.slice(ends[last], starts[last + 1]) + maskGroups(groups, last + 1, to) : '';
  return before + middle(first, last) + after;
}

/**
 * Groups `from`…`to` as one number in `maskPhone`'s shape (a leading `+` stays), or as written
 * when they do not read as a phone number (`maskDigits`).
 */
function maskRun(groups: DigitGroups, from: number, to: number): string {
  const { text, starts, ends, digits } = groups;
  const lead = from === 0 ? text.slice(0, starts[0]) : '';
  // A `(` opening a group is dropped with the `)` that closes it, kept when the number is in it.
  const closed = text.slice(starts[from], ends[to]).includes(')');
  const kept = lead === '+' || (lead === '(' && !closed) ? lead : '';
  const masked = maskDigits(kept, digits.slice(from, to + 1).flat(), from === to);
  return masked ?? spanOf(groups, from, to);
}

/**
 * `maskPhone`'s shape for `digits`, after `lead` (a `+`, a `(` or nothing), or undefined
 * when they do not read as a phone number: fewer than 8 digits, more than 15 in one run (a
 * token), or a number starting with 1 that is not 11 digits long (numbers starting with 1 are
 * North American, 11 digits with their country code; other ones are Unix times in seconds or
 * milliseconds).
 */
function maskDigits(lead: string, digits: string[], oneRun: boolean): string | undefined {
  const tooLong = oneRun && digits.length > 15;
  if (digits.length < 8 || tooLong || (digits[0] === '1' && digits.length !== 11)) return;
  return `${lead}${digits.slice(0, 3).join('')}${'•'.repeat(digits.length - 6)}${digits.slice(-3).join('')}`;
}

/** Groups `from`…`to` as written, with the chain's leading `+` or `(` when `from` is the first. */
function spanOf(groups: DigitGroups, from: number, to: number): string {
  return groups.text.slice(from === 0 ? 0 : groups.starts[from], groups.ends[to]);
}

/** `+33 …`, `0033 …`: a country code the rest of the number follows as one long group. */
function isCountryPrefix(groups: DigitGroups, index: number): boolean {
  const group = groups.digits[index]!;
  if (index === 0 && groups.text.startsWith('+')) return group.length <= 3;
  return group.length >= 3 && group.length <= 5 && group[0] === '0' && group[1] === '0';
}

const space = /^[ \u00A0\u202F]$/;

/**
 * `3.14159265`, `612 345 678.50`: one dot, before the last group, after a single group or
 * groups of thousands separated by spaces.
 */
function isDecimal(groups: DigitGroups, from: number, to: number): boolean {
  const { text, starts, ends, digits } = groups;
  if (from === 0 && starts[0]! > 0) return false;
  if (text.slice(ends[to - 1], starts[to]) !== '.') return false;
  for (let index = from + 1; index < to; index++) {
    const between = text.slice(ends[index - 1], starts[index]);
    if (!space.test(between) || digits[index]!.length !== 3) return false;
  }
  return to - 1 === from || digits[from]!.length <= 3;
}

/** A JSON string literal, escapes included. */
const jsonString = /"(?:[^"\\]|\\.)*"/g;
/** Eight digits, maybe with separators between them: what a literal needs to hold a number. */
const asciiRun = /[0-9](?:[ .()-]{0,2}[0-9]){7}/;
const nonAscii = /[^ -~\t\n\r]/;

/**
 * Masks the phone numbers inside the string values (and keys) of one JSON log line, leaving
 * its numbers (`time`, `pid`, counts, due times) as they are. The logger runs every line
 * through it (`createLogger`), so no message, field, error message, stack or cause, whoever
 * wrote it, carries a full phone number. It costs a few µs a line.
 */
export function maskPhonesInJsonLine(line: string): string {
  return line.replace(jsonString, (literal) =>
    asciiRun.test(literal) || (nonAscii.test(literal) && eightDigits.test(literal))
      ? maskPhonesInText(literal)
      : literal,
  );
}
