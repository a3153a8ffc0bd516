import { zoneOffset } from './zone-offset.ts';

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/**
 * The instant `at` (ms) as ISO 8601 on the wall clock of `timeZone`, with that offset: what an
 * operator reads in a dry run, in the recipient's own time.
 *
 * @example
 * toZonedIso(Date.parse('2027-12-06T08:00:00Z'), 'Europe/Paris'); // '2027-12-06T09:00:00+01:00'
 * toZonedIso(Date.parse('2027-12-06T08:00:00Z'), 'UTC'); // '2027-12-06T08:00:00Z'
 */
export function toZonedIso(at: number, timeZone: string): string {
  const offset = zoneOffset(at, timeZone);
  const wall = new Date(at + offset);
  const date = `${wall.getUTCFullYear()}-${pad(wall.getUTCMonth() + 1)}-${pad(wall.getUTCDate())}`;
  const ms = wall.getUTCMilliseconds();
  const time =
    `${pad(wall.getUTCHours())}:${pad(wall.getUTCMinutes())}:${pad(wall.getUTCSeconds())}` +
    (ms === 0 ? '' : `.${pad(ms, 3)}`);
  if (offset === 0) return `${date}T${time}Z`;
  const minutes = Math.abs(offset) / 60_000;
  const sign = offset < 0 ? '-' : '+';
  return `${date}T${time}${sign}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}
