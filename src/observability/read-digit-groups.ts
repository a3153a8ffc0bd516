/**
 * A chain of digit groups as written (`+1 (201) 555-0123`): the text, where each group starts
 * and ends in it, each group's digits (code points, so that digits of any script count) and its
 * value (NaN for digits of another script).
 */
export interface DigitGroups {
  text: string;
  starts: number[];
  ends: number[];
  digits: string[][];
  values: number[];
}

const group = /\p{Nd}+/gu;
const ascii = /^[0-9]+$/;

/** The digit groups of a chain found by `maskPhonesInText`. */
export function readDigitGroups(text: string): DigitGroups {
  const groups: DigitGroups = { text, starts: [], ends: [], digits: [], values: [] };
  group.lastIndex = 0;
  for (let found = group.exec(text); found !== null; found = group.exec(text)) {
    groups.starts.push(found.index);
    groups.ends.push(found.index + found[0].length);
    groups.digits.push(Array.from(found[0]));
    groups.values.push(ascii.test(found[0]) ? Number(found[0]) : Number.NaN);
  }
  return groups;
}

/** The separator between group `at` and the next one, or undefined at either end. */
function separatorAfter(groups: DigitGroups, at: number): string | undefined {
  if (at < 0 || at >= groups.starts.length - 1) return undefined;
  return groups.text.slice(groups.ends[at], groups.starts[at + 1]);
}

/** Whether groups `index`…`index + count - 1` exist up to `to` and are joined by `by` alone. */
function joined(groups: DigitGroups, index: number, count: number, to: number, by: string) {
  if (index + count - 1 > to) return false;
  for (let at = index; at < index + count - 1; at++) {
    if (separatorAfter(groups, at) !== by) return false;
  }
  return true;
}

function isYear(groups: DigitGroups, at: number): boolean {
  const value = groups.values[at]!;
  return groups.digits[at]!.length === 4 && value >= 1900 && value <= 2099;
}

function isWithin(groups: DigitGroups, at: number, digits: number, least: number, most: number) {
  const value = groups.values[at]!;
  return groups.digits[at]!.length <= digits && value >= least && value <= most;
}

function isDate(groups: DigitGroups, at: number): boolean {
  if (isYear(groups, at))
    return isWithin(groups, at + 1, 2, 1, 12) && isWithin(groups, at + 2, 2, 1, 31);
  const dayMonth = isWithin(groups, at, 2, 1, 31) && isWithin(groups, at + 1, 2, 1, 31);
  const oneIsMonth = groups.values[at]! <= 12 || groups.values[at + 1]! <= 12;
  return dayMonth && oneIsMonth && isYear(groups, at + 2);
}

function isTime(groups: DigitGroups, at: number): boolean {
  return (
    isWithin(groups, at, 2, 0, 23) &&
    groups.digits[at + 1]!.length === 2 &&
    isWithin(groups, at + 1, 2, 0, 59)
  );
}

/**
 * How many groups from `index` (at most up to `to`) form a number that is no phone number, kept
 * as written: a date (`2024-11-23`, `23.11.2024`), a year range (`2010-2024`), opening hours
 * (`09.00-12.30`), an IPv4 address (`192.168.100.200`, unless dots go on around it as in
 * `06.12.34.56.78`). 0 when none does.
 */
export function keptShapeAt(groups: DigitGroups, index: number, to: number): number {
  const date = joined(groups, index, 3, to, '-') || joined(groups, index, 3, to, '.');
  if (date && isDate(groups, index)) return 3;
  if (joined(groups, index, 2, to, '-') && isYear(groups, index) && isYear(groups, index + 1)) {
    return 2;
  }
  if (index + 3 > to) return 0;
  const hours =
    separatorAfter(groups, index) === '.' &&
    separatorAfter(groups, index + 1) === '-' &&
    separatorAfter(groups, index + 2) === '.';
  if (hours && isTime(groups, index) && isTime(groups, index + 2)) return 4;
  const alone =
    separatorAfter(groups, index - 1) !== '.' && separatorAfter(groups, index + 3) !== '.';
  if (!alone || !joined(groups, index, 4, to, '.')) return 0;
  for (let at = index; at < index + 4; at++) if (!isWithin(groups, at, 3, 0, 255)) return 0;
  return 4;
}
