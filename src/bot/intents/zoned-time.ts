import { errorCodes, ReplyflowError } from '../../errors.ts';

/** A wall-clock time: what a clock on the wall of `timeZone` shows. Months are 1-12. */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function formatFor(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch (cause) {
      throw new ReplyflowError(
        errorCodes.BOT_DEFINITION_INVALID,
        `time zone '${timeZone}' is unknown: use an IANA name such as Europe/Paris or America/New_York`,
        { cause },
      );
    }
    formats.set(timeZone, format);
  }
  return format;
}

/**
 * The offset of `timeZone` from UTC at `instant`, in minutes (Paris in winter: 60). Throws a
 * clear error for a name that is not an IANA time zone.
 *
 * @example
 * zoneOffsetMinutes(new Date('2026-07-01T12:00:00Z'), 'Europe/Paris'); // 120
 */
export function zoneOffsetMinutes(instant: Date, timeZone: string): number {
  const parts = Object.fromEntries(
    formatFor(timeZone)
      .formatToParts(instant)
      .map((part) => [part.type, Number(part.value)]),
  ) as Record<string, number>;
  const asUtc = Date.UTC(
    parts.year!,
    parts.month! - 1,
    parts.day!,
    parts.hour!,
    parts.minute!,
    parts.second!,
  );
  return Math.round((asUtc - (instant.getTime() - instant.getMilliseconds())) / 60_000);
}

/**
 * The instant a wall-clock time of `timeZone` stands for, whatever the offset that day (summer
 * time included). A time skipped by the spring change reads one hour later, as clocks do.
 *
 * @example
 * zonedTimeToDate({ year: 2026, month: 12, day: 3, hour: 14, minute: 0, second: 0 }, 'Europe/Paris');
 * // 2026-12-03T13:00:00.000Z
 */
export function zonedTimeToDate(wall: WallClock, timeZone: string): Date {
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  const first = asUtc - zoneOffsetMinutes(new Date(asUtc), timeZone) * 60_000;
  const second = asUtc - zoneOffsetMinutes(new Date(first), timeZone) * 60_000;
  return new Date(second);
}
