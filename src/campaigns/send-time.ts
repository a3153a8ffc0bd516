import { isTimeZone } from '../compliance/local-time.ts';
import { errorCodes, ValidationError } from '../errors.ts';
import { type DeliveryWindow, nextInWindow, parseDeliveryWindow } from './delivery-window.ts';
import { parseDateValue } from './parse-date-value.ts';
import { applyOffset, type Offset, parseOffset } from './parse-offset.ts';
import { toZonedIso } from './zoned-iso.ts';

/**
 * What to do with a send time already past when the recipient is read: `skip` it, or send at
 * once when it is at most `ms` late (`sendIfWithin`, e.g. 6 hours for a reminder).
 */
export type PastPolicy =
  | { readonly kind: 'skip' }
  | { readonly kind: 'sendIfWithin'; readonly ms: number };

/** When a campaign sends to each recipient. */
export type SendTimeSpec = {
  /** The recipient's IANA time zone, else the campaign's: wall times and windows are read in it. */
  readonly timeZone: string;
  /** Hours of the day sends may go (`09:00-19:00`); a time outside moves to the next opening. */
  readonly window?: string | undefined;
  readonly past: PastPolicy;
} & (
  | {
      /** An instant (`2027-12-06T09:00:00Z`) or a wall time in the time zone; absent: now. */
      readonly at?: string | undefined;
      readonly relativeTo?: undefined;
      readonly offset?: undefined;
    }
  | {
      /** The column (CSV) or field (JSON lines) holding each recipient's date. */
      readonly relativeTo: string;
      /** From that date: `-24h`, `-1d`, `+30m`, `0m` (see `parseOffset`). */
      readonly offset: string;
      readonly at?: undefined;
    }
);

/** A recipient's send time (ms), or why there is none. */
export type SendTime =
  | { readonly at: number }
  | { readonly skip: 'past_due' | 'bad_date'; readonly message: string };

const dateForms =
  'write 2027-12-06, 2027-12-06T09:00 (in the time zone) or 2027-12-06T09:00:00+01:00';

/**
 * Checks a campaign's spec once, before any row is read: a mistake there would otherwise be the
 * same error on every row. Throws a `ValidationError` (`INPUT_INVALID`) naming the field.
 *
 * @example
 * checkSendTimeSpec({ relativeTo: 'appointment', offset: '-1d', timeZone: 'Europe/Paris', past: { kind: 'skip' } });
 */
export function checkSendTimeSpec(spec: SendTimeSpec): void {
  const refuse = (message: string, field: string) =>
    new ValidationError(errorCodes.INPUT_INVALID, message, field);
  if (!isTimeZone(spec.timeZone)) {
    throw refuse(
      `'${spec.timeZone}' is not a known time zone: use an IANA name such as Europe/Paris or America/New_York`,
      'timeZone',
    );
  }
  if (spec.window !== undefined) parseDeliveryWindow(spec.window);
  if (spec.relativeTo !== undefined) {
    if (spec.relativeTo.trim() === '') throw refuse('relativeTo must name a column', 'relativeTo');
    parseOffset(spec.offset);
  } else if (spec.at !== undefined && parseDateValue(spec.at, spec.timeZone) === undefined) {
    throw refuse(`'${spec.at}' is not a date: ${dateForms}`, 'at');
  }
  if (spec.past.kind === 'sendIfWithin' && !(spec.past.ms >= 0 && Number.isFinite(spec.past.ms))) {
    throw refuse('past.ms must be a duration of 0 ms or more', 'past');
  }
}

/**
 * A recipient's send time: `spec.at` (now when absent), or the date in the row's
 * `spec.relativeTo` column moved by `spec.offset`; then the window's next opening when it falls
 * outside the window. A time already past (the opening, when a window moved it) is `past_due`,
 * unless `sendIfWithin` allows it: then it is now (or the window's next opening). Every outcome
 * comes back with its reason; nothing is dropped. A spec that `checkSendTimeSpec` would refuse
 * throws.
 *
 * @example
 * const spec = { relativeTo: 'appointment', offset: '-1d', timeZone: 'Europe/Paris', window: '09:00-19:00', past: { kind: 'skip' } } as const;
 * sendTimeOf(spec, { appointment: '2027-12-06T08:00' }, Date.parse('2027-12-01T00:00:00Z'));
 * // { at: Date.parse('2027-12-05T09:00:00+01:00') }: the day before at 08:00, moved to the 09:00 opening
 * sendTimeOf(spec, { appointment: 'tomorrow' }, Date.now());
 * // { skip: 'bad_date', message: "'tomorrow' in column 'appointment' is not a date: …" }
 */
export function sendTimeOf(
  spec: SendTimeSpec,
  row: Readonly<Record<string, unknown>>,
  now: number,
): SendTime {
  const zone = spec.timeZone;
  let due: number;
  if (spec.relativeTo !== undefined) {
    const column = spec.relativeTo;
    const value = row[column];
    if (value === undefined || value === null || value === '') {
      return { skip: 'bad_date', message: `no date in column '${column}'` };
    }
    const date = typeof value === 'string' ? parseDateValue(value, zone) : undefined;
    if (date === undefined) {
      const shown = typeof value === 'string' ? `'${value}'` : `a ${typeof value}`;
      return {
        skip: 'bad_date',
        message: `${shown} in column '${column}' is not a date: ${dateForms}`,
      };
    }
    due = applyOffset(date, parsed(offsets, spec.offset, parseOffset), zone);
  } else if (spec.at !== undefined) {
    const at = parseDateValue(spec.at, zone);
    if (at === undefined)
      throw new ValidationError(
        errorCodes.INPUT_INVALID,
        `'${spec.at}' is not a date: ${dateForms}`,
        'at',
      );
    due = at;
  } else {
    due = now;
  }
  const window =
    spec.window === undefined ? undefined : parsed(windows, spec.window, parseDeliveryWindow);
  if (window) due = nextInWindow(due, window, zone);
  if (due >= now) return { at: due };
  const late = now - due;
  if (spec.past.kind === 'sendIfWithin' && late <= spec.past.ms) {
    return { at: window ? nextInWindow(now, window, zone) : now };
  }
  return {
    skip: 'past_due',
    message:
      `was due ${toZonedIso(due, zone)}, ${describeDuration(late)} ago` +
      (spec.past.kind === 'sendIfWithin'
        ? `: later than the ${describeDuration(spec.past.ms)} allowed`
        : ''),
  };
}

/**
 * Offsets and windows read so far: a campaign has one of each, and a million rows would
 * otherwise read them a million times.
 */
const offsets = new Map<string, Offset>();
const windows = new Map<string, DeliveryWindow>();

function parsed<T>(cache: Map<string, T>, text: string, parse: (text: string) => T): T {
  let value = cache.get(text);
  if (value === undefined) {
    value = parse(text);
    if (cache.size >= 100) cache.clear();
    cache.set(text, value);
  }
  return value;
}

/** `2 d 3 h`, `5 h 20 min`, `12 min`, `under a minute`: the two largest units. */
function describeDuration(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return 'under a minute';
  const parts: Array<[number, string]> = [
    [Math.floor(minutes / 1440), 'd'],
    [Math.floor(minutes / 60) % 24, 'h'],
    [minutes % 60, 'min'],
  ];
  const first = parts.findIndex(([amount]) => amount > 0);
  return parts
    .slice(first, first + 2)
    .filter(([amount]) => amount > 0)
    .map(([amount, unit]) => `${amount} ${unit}`)
    .join(' ');
}
