import { instantOfWallTime } from './wall-clock.ts';

const pattern =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|z|[+-]\d{2}:?\d{2})?)?$/;
const minuteMs = 60_000;

/**
 * Reads a date as a campaign file writes it, as an instant (ms), or undefined when it is not
 * one. With an offset it is that instant (`2027-12-06T09:00:00+01:00`, `…Z`); without, it is a
 * wall time in `timeZone` (`2027-12-06T09:00`, `2027-12-06 09:00`); a date alone is local
 * midnight (`2027-12-06`). A wall time the clocks skip or repeat is read as `instantOfWallTime`
 * reads it. Stricter than `Date.parse`, which accepts and reads differently what each engine
 * likes: the month, day, hour and minute must exist.
 *
 * @example
 * parseDateValue('2027-12-06T09:00', 'Europe/Paris'); // Date.parse('2027-12-06T08:00:00Z')
 * parseDateValue('2027-12-06T09:00:00-05:00', 'Europe/Paris'); // Date.parse('2027-12-06T14:00:00Z')
 * parseDateValue('06/12/2027', 'Europe/Paris'); // undefined
 */
export function parseDateValue(text: string, timeZone: string): number | undefined {
  const match = pattern.exec(text.trim());
  if (!match) return undefined;
  const [year, month, day, hour = 0, minute = 0, second = 0] = match
    .slice(1, 7)
    .map((part) => (part === undefined ? undefined : Number(part))) as number[];
  const ms = Number((match[7] ?? '').padEnd(3, '0').slice(0, 3));
  if (hour! > 23 || minute > 59 || second > 59) return undefined;
  const wall = Date.UTC(year!, month! - 1, day!, hour, minute, second, ms);
  const date = new Date(wall);
  // Date.UTC rolls 2027-02-30 over into March: a date that changed was not a date.
  if (date.getUTCMonth() !== month! - 1 || date.getUTCDate() !== day) return undefined;
  const zone = match[8];
  if (zone === undefined) return instantOfWallTime(wall, timeZone);
  if (zone === 'Z' || zone === 'z') return wall;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const offsetHours = Number(digits.slice(0, 2));
  const offsetMinutes = Number(digits.slice(2));
  if (offsetHours > 23 || offsetMinutes > 59) return undefined;
  return wall - sign * (offsetHours * 60 + offsetMinutes) * minuteMs;
}
