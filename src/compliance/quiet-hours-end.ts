import { type LocalTime, localTime } from './local-time.ts';
import { isQuietLocal, type QuietHours } from './quiet-hours.ts';

const minuteMs = 60_000;
const dayMs = 86_400_000;
/** No zone is more than 14 hours from UTC. */
const maxOffsetMs = 14 * 3_600_000;
/** How far ahead to look; a run of quiet dates longer than this is re-checked at its end. */
const horizonDays = 40;

/**
 * When `now` (ms) falls in the quiet hours, the first instant (ms) sending is allowed again;
 * otherwise undefined. Exact across midnight, quiet days and dates, and the time zone's DST
 * changes: a window ending at 08:00 ends at 08:00 local time on the night the clocks change,
 * and a window end the clocks skip over ends when they jump.
 *
 * @example
 * const quiet = createCompliancePolicy({ quietHours: { timeZone: 'Europe/Paris', window: '21:00-08:00' } }).quietHours!;
 * quietHoursEnd(Date.parse('2026-11-23T22:00:00Z'), quiet); // Date.parse('2026-11-24T07:00:00Z')
 */
export function quietHoursEnd(now: number, quiet: QuietHours): number | undefined {
  const known = lastAnswer.get(quiet);
  if (known && now >= known.from && now < known.until) return known.end;
  const zone = quiet.timeZone;
  const here = localTime(now, zone);
  if (!isQuietLocal(here, quiet)) {
    // Quiet hours begin and end on whole local minutes, which are whole UTC minutes when the
    // offset is: the answer holds for the rest of this minute.
    if (here.offsetMs % minuteMs === 0) {
      const from = now - (now % minuteMs);
      lastAnswer.set(quiet, { from, until: from + minuteMs, end: undefined });
    }
    return undefined;
  }
  const end = searchEnd(now, here, quiet);
  // Every instant from now to the end is quiet, so the end is theirs too.
  lastAnswer.set(quiet, { from: now, until: end, end });
  return end;
}

/**
 * The last answer per quiet hours and the instants it holds for: a sender asks again for each
 * message, and an answer costs tens of Intl calls of about 20 µs each.
 */
const lastAnswer = new WeakMap<
  QuietHours,
  { from: number; until: number; end: number | undefined }
>();

function searchEnd(now: number, here: LocalTime, quiet: QuietHours): number {
  const zone = quiet.timeZone;
  const allowed = (at: number) => at > now && !isQuietLocal(localTime(at, zone), quiet);
  // Sending becomes allowed either when the clock runs over a boundary (the window's end, or
  // midnight into a day that is not quiet), or when it jumps at a DST change. So the answer is
  // the earliest allowed instant among those, looked for one local day after another.
  let best: number | undefined;
  for (let d = 0; d <= horizonDays; d++) {
    const midnight = Date.UTC(here.year, here.month - 1, here.day + d);
    const walls = [midnight];
    if (quiet.window) walls.push(midnight + quiet.window.end * minuteMs);
    const candidates = walls.flatMap((wall) => instantsAt(wall, zone));
    const change = offsetChange(midnight - maxOffsetMs, midnight + dayMs + maxOffsetMs, zone);
    if (change !== undefined) candidates.push(change);
    for (const at of candidates) if (allowed(at) && (best === undefined || at < best)) best = at;
    // Later days' candidates all come after this: whatever the offset, a wall time of the next
    // day is an instant after its midnight read as UTC minus the largest offset.
    if (best !== undefined && best < midnight + dayMs - maxOffsetMs) return best;
  }
  return best ?? now + horizonDays * dayMs;
}

/** The instants whose wall clock reads `wall` (a local time written as UTC ms): none in a DST gap, two in a fold. */
function instantsAt(wall: number, zone: string): number[] {
  const offsets = new Set([
    localTime(wall - dayMs, zone).offsetMs,
    localTime(wall + dayMs, zone).offsetMs,
  ]);
  const found: number[] = [];
  for (const offset of offsets) {
    const at = wall - offset;
    if (localTime(at, zone).offsetMs === offset) found.push(at);
  }
  return found.sort((a, b) => a - b);
}

/**
 * The instant the zone's offset changes between the instants `from` and `to`, if it does: the
 * first second with the new offset (offsets change at most once a day).
 */
function offsetChange(from: number, to: number, zone: string): number | undefined {
  let lo = Math.floor(from / 1000);
  let hi = Math.ceil(to / 1000);
  const before = localTime(lo * 1000, zone).offsetMs;
  if (localTime(hi * 1000, zone).offsetMs === before) return undefined;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (localTime(mid * 1000, zone).offsetMs === before) lo = mid;
    else hi = mid;
  }
  return hi * 1000;
}
