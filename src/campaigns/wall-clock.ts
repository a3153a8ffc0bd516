import { zoneOffset } from './zone-offset.ts';

const dayMs = 86_400_000;

/**
 * A wall clock reading of `timeZone` at the instant `at`, written as the UTC instant with the
 * same digits: calendar arithmetic on it (a day is 86,400,000 ms, midnight is a multiple of it)
 * ignores the zone's DST changes, which `instantOfWallTime` applies on the way back.
 *
 * @example
 * wallTimeOf(Date.parse('2027-01-15T08:00:00Z'), 'Europe/Paris'); // Date.parse('2027-01-15T09:00:00Z')
 */
export function wallTimeOf(at: number, timeZone: string): number {
  return at + zoneOffset(at, timeZone);
}

/**
 * The instants whose wall clock in `timeZone` reads `wall`, earliest first: one as a rule, none
 * in a spring-forward gap, two in the hour an autumn change repeats.
 *
 * @example
 * instantsAtWallTime(Date.parse('2027-03-28T02:30:00Z'), 'Europe/Paris'); // [] (clocks skip 02:00-03:00)
 */
export function instantsAtWallTime(wall: number, timeZone: string): number[] {
  // The zone's offsets around that wall time: a change, if any, falls between these samples.
  const offsets = new Set([
    zoneOffset(wall - dayMs, timeZone),
    zoneOffset(wall, timeZone),
    zoneOffset(wall + dayMs, timeZone),
  ]);
  const found: number[] = [];
  for (const offset of offsets) {
    const at = wall - offset;
    if (zoneOffset(at, timeZone) === offset) found.push(at);
  }
  return found.sort((a, b) => a - b);
}

/**
 * The instant a wall time means, disambiguated as Temporal's `'compatible'` and RFC 5545 do: a
 * repeated wall time is its first occurrence, and one the clocks skip is read with the offset in
 * force before the skip, so it lands as far past the jump as it was past the gap's start
 * (02:30 on the night Paris skips 02:00-03:00 is 03:30).
 *
 * @example
 * instantOfWallTime(Date.parse('2027-03-28T02:30:00Z'), 'Europe/Paris'); // Date.parse('2027-03-28T01:30:00Z'), 03:30 CEST
 */
export function instantOfWallTime(wall: number, timeZone: string): number {
  const found = instantsAtWallTime(wall, timeZone);
  if (found.length > 0) return found[0]!;
  return wall - zoneOffset(wall - dayMs, timeZone);
}

/**
 * For a wall time the clocks skip, the instant they jump (the first instant whose wall clock
 * reads later than it); undefined when the wall time exists.
 *
 * @example
 * skipEndAfterWallTime(Date.parse('2027-03-28T02:30:00Z'), 'Europe/Paris'); // Date.parse('2027-03-28T01:00:00Z'), 03:00 CEST
 */
export function skipEndAfterWallTime(wall: number, timeZone: string): number | undefined {
  if (instantsAtWallTime(wall, timeZone).length > 0) return undefined;
  const before = zoneOffset(wall - dayMs, timeZone);
  const after = zoneOffset(wall + dayMs, timeZone);
  // Read with the later offset the wall time is an instant before the jump, with the earlier one
  // an instant after it: the change lies between, on a whole second.
  let lo = Math.floor((wall - after) / 1000);
  let hi = Math.ceil((wall - before) / 1000);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (zoneOffset(mid * 1000, timeZone) === before) lo = mid;
    else hi = mid;
  }
  return hi * 1000;
}
