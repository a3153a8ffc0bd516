/** A wall-clock reading in a time zone. */
export interface LocalTime {
  year: number;
  month: number;
  day: number;
  /** Minutes after local midnight. */
  minutes: number;
  /** 0 = Sunday … 6 = Saturday. */
  weekday: number;
  /** Local time minus UTC, in ms, at that instant. */
  offsetMs: number;
}

const weekdays = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const formatters = new Map<string, Intl.DateTimeFormat>();

/** True when the runtime knows the IANA time zone (`Europe/Paris`, `America/New_York`). */
export function isTimeZone(timeZone: string): boolean {
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The wall clock of `timeZone` at the instant `at` (ms). */
export function localTime(at: number, timeZone: string): LocalTime {
  const fields: Record<string, string> = {};
  for (const part of formatter(timeZone).formatToParts(at)) fields[part.type] = part.value;
  const year = Number(fields.year);
  const month = Number(fields.month);
  const day = Number(fields.day);
  const hour = Number(fields.hour);
  const minute = Number(fields.minute);
  const wall = Date.UTC(year, month - 1, day, hour, minute, Number(fields.second));
  return {
    year,
    month,
    day,
    minutes: hour * 60 + minute,
    weekday: weekdays.indexOf(fields.weekday ?? ''),
    // The formatter has whole seconds: compare with the instant's whole second.
    offsetMs: wall - Math.floor(at / 1000) * 1000,
  };
}

function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (!format) {
    // Throws RangeError for a zone the runtime does not know.
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      weekday: 'short',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, format);
  }
  return format;
}
