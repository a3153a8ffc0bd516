import { errorCodes, ValidationError } from '../errors.ts';
import { instantsAtWallTime, skipEndAfterWallTime, wallTimeOf } from './wall-clock.ts';

/**
 * The hours of the day a campaign may send, in the recipient's time zone: minutes after local
 * midnight, `start` included and `end` excluded. It crosses midnight when `end < start`
 * (`21:00-08:00` is 1260 → 480), and `end` is 0 when it runs to midnight (`09:00-24:00`).
 */
export interface DeliveryWindow {
  readonly start: number;
  readonly end: number;
}

const pattern = /^(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})$/;
const minuteMs = 60_000;
const dayMs = 86_400_000;

/**
 * Reads a daily window `HH:MM-HH:MM` on the 24-hour clock: `09:00-19:00`, or one that crosses
 * midnight, `21:00-08:00`. `24:00` is accepted as an end. Throws a `ValidationError`
 * (`INPUT_INVALID`, field `window`) for anything else, `9-19` and `19:00-19:00` included.
 *
 * @example
 * parseDeliveryWindow('09:00-19:00'); // { start: 540, end: 1140 }
 * parseDeliveryWindow('9-19'); // throws: '9-19' is not a window: write HH:MM-HH:MM …
 */
export function parseDeliveryWindow(text: string): DeliveryWindow {
  const refuse = (why: string) =>
    new ValidationError(errorCodes.INPUT_INVALID, `'${text}' ${why}`, 'window');
  const match = pattern.exec(text.trim());
  if (!match) {
    throw refuse(
      'is not a window: write HH:MM-HH:MM on the 24-hour clock, such as 09:00-19:00 (or 21:00-08:00 across midnight)',
    );
  }
  const [sh, sm, eh, em] = match.slice(1).map(Number) as [number, number, number, number];
  if (sh > 23 || sm > 59 || eh > 24 || em > 59 || (eh === 24 && em > 0)) {
    throw refuse(
      'is not a window: hours run from 00 to 23 (24:00 only as an end), minutes 00 to 59',
    );
  }
  const window = { start: sh * 60 + sm, end: (eh * 60 + em) % 1440 };
  if (window.start === window.end) {
    throw refuse(
      'starts and ends at the same time: leave the window out to send at any hour of the day',
    );
  }
  return window;
}

/**
 * `at` (ms) when its wall clock in `timeZone` falls inside the window, else the next instant
 * the window opens there. DST-safe: the opening is read on the wall clock of that day, so it
 * is 09:00 local on the night the clocks change too; an opening the clocks skip (02:30 on a
 * spring-forward night) is the instant they jump (03:00), the first moment inside the window;
 * an opening they repeat is its first occurrence still ahead of `at`.
 *
 * @example
 * const friday = Date.parse('2027-12-03T20:00:00+01:00');
 * nextInWindow(friday, parseDeliveryWindow('09:00-19:00'), 'Europe/Paris'); // Date.parse('2027-12-04T09:00:00+01:00')
 */
export function nextInWindow(
  at: number,
  window: DeliveryWindow | string,
  timeZone: string,
): number {
  const { start, end } = typeof window === 'string' ? parseDeliveryWindow(window) : window;
  const wall = wallTimeOf(at, timeZone);
  const sinceMidnight = ((wall % dayMs) + dayMs) % dayMs;
  const startMs = start * minuteMs;
  const endMs = end * minuteMs;
  const inside =
    startMs < endMs
      ? sinceMidnight >= startMs && sinceMidnight < endMs
      : sinceMidnight >= startMs || sinceMidnight < endMs;
  if (inside) return at;
  const midnight = wall - sinceMidnight;
  // Today's opening is looked at even when the clock is past it: in an hour the clocks repeat,
  // the wall clock comes back to it (01:50 EDT, then 01:30 EST in 40 minutes).
  for (let day = 0; day <= 2; day++) {
    const opening = midnight + day * dayMs + startMs;
    const ahead = instantsAtWallTime(opening, timeZone).find((instant) => instant > at);
    if (ahead !== undefined) return ahead;
    const jump = skipEndAfterWallTime(opening, timeZone);
    if (jump !== undefined && jump > at) return jump;
  }
  throw new Error(
    `no opening of the window found in ${timeZone} after ${new Date(at).toISOString()}`,
  );
}
