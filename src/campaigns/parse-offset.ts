import { errorCodes, ValidationError } from '../errors.ts';
import { instantOfWallTime, wallTimeOf } from './wall-clock.ts';

/**
 * A parsed offset: minutes and hours are an exact duration, days and weeks a number of calendar
 * days in the recipient's time zone (the same wall time, 23 or 25 hours away across a DST change).
 */
export type Offset =
  | { readonly kind: 'duration'; readonly ms: number }
  | { readonly kind: 'days'; readonly days: number };

const pattern = /^([+-]?)(\d{1,5})([mhdw])$/;
const minuteMs = 60_000;
const dayMs = 86_400_000;
const expected =
  'write a sign, a whole number and a unit: m (minutes), h (hours), d (days) or w (weeks), such as -24h, +30m, -1d or +2w';

/**
 * Reads an offset from a date: `-24h`, `-90m`, `+30m`, `-1d`, `-2w`, `+3d`, `0m`. A sign is
 * required unless the amount is 0, so that `1d` is never read as the wrong side of the date.
 * Throws a `ValidationError` (`INPUT_INVALID`, field `offset`) that says what to write.
 *
 * @example
 * parseOffset('-24h'); // { kind: 'duration', ms: -86_400_000 }
 * parseOffset('-1d'); // { kind: 'days', days: -1 }
 * parseOffset('1d'); // throws: '1d' needs a sign: -1d for before the date, +1d for after
 */
export function parseOffset(text: string): Offset {
  const match = pattern.exec(text.trim());
  if (!match) {
    throw new ValidationError(
      errorCodes.INPUT_INVALID,
      `'${text}' is not an offset: ${expected}`,
      'offset',
    );
  }
  const [, sign, digits, unit] = match as unknown as [string, string, string, string];
  const amount = Number(digits);
  if (amount !== 0 && sign === '') {
    throw new ValidationError(
      errorCodes.INPUT_INVALID,
      `'${text}' needs a sign: -${digits}${unit} for before the date, +${digits}${unit} for after`,
      'offset',
    );
  }
  // `-0d` is 0, not -0, so that two equal offsets compare equal.
  const signed = sign === '-' && amount !== 0 ? -amount : amount;
  switch (unit) {
    case 'm':
      return { kind: 'duration', ms: signed * minuteMs };
    case 'h':
      return { kind: 'duration', ms: signed * 60 * minuteMs };
    case 'd':
      return { kind: 'days', days: signed };
    default:
      return { kind: 'days', days: signed * 7 };
  }
}

/**
 * The instant `offset` away from `at` (ms): an exact duration for minutes and hours, the same
 * wall time in `timeZone` so many calendar days away for days and weeks. A wall time the clocks
 * skip that day moves past the jump by as much (02:30 → 03:30), and one they repeat is its first
 * occurrence (see `instantOfWallTime`).
 *
 * @example
 * const sunday = Date.parse('2027-03-28T09:00:00+02:00'); // 09:00 in Paris, hours after the clocks went forward
 * applyOffset(sunday, '-1d', 'Europe/Paris'); // Date.parse('2027-03-27T09:00:00+01:00'), 23 hours earlier
 * applyOffset(sunday, '-24h', 'Europe/Paris'); // Date.parse('2027-03-27T08:00:00+01:00')
 */
export function applyOffset(at: number, offset: Offset | string, timeZone: string): number {
  const parsed = typeof offset === 'string' ? parseOffset(offset) : offset;
  if (parsed.kind === 'duration') return at + parsed.ms;
  if (parsed.days === 0) return at;
  return instantOfWallTime(wallTimeOf(at, timeZone) + parsed.days * dayMs, timeZone);
}
