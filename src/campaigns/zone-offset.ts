import { localTime } from '../compliance/local-time.ts';

const hourMs = 3_600_000;
/** Hours remembered per time zone before the cache starts again (a few MB at most). */
const maxHours = 50_000;
/**
 * Per time zone, the offset of each UTC hour whose first and last second share it, or null for
 * an hour with a change inside it. An Intl reading costs about 9 µs, and an import of a million
 * rows asks for a few offsets per row, nearly all of them in the same few hundred hours.
 */
const hours = new Map<string, Map<number, number | null>>();

/**
 * The offset of `timeZone` at the instant `at`: its wall clock minus UTC, in ms
 * (`3_600_000` for Paris in winter). Throws a RangeError for a zone the runtime does not know,
 * so check names with `isTimeZone` first. Assumes a zone changes its offset at most once in an
 * hour, which every zone of the IANA database does.
 *
 * @example
 * zoneOffset(Date.parse('2027-01-15T12:00:00Z'), 'Europe/Paris'); // 3_600_000
 * zoneOffset(Date.parse('2027-07-15T12:00:00Z'), 'Europe/Paris'); // 7_200_000
 */
export function zoneOffset(at: number, timeZone: string): number {
  const hour = Math.floor(at / hourMs);
  let zone = hours.get(timeZone);
  if (!zone) {
    zone = new Map();
    hours.set(timeZone, zone);
  }
  let offset = zone.get(hour);
  if (offset === undefined) {
    const first = localTime(hour * hourMs, timeZone).offsetMs;
    const last = localTime((hour + 1) * hourMs - 1, timeZone).offsetMs;
    offset = first === last ? first : null;
    if (zone.size >= maxHours) zone.clear();
    zone.set(hour, offset);
  }
  return offset ?? localTime(at, timeZone).offsetMs;
}
