import { createRequire } from 'node:module';
import type { Chrono, ParsedResult } from 'chrono-node';
import { errorCodes, ReplyflowError } from '../../errors.ts';
import { zonedTimeToDate, zoneOffsetMinutes } from './zoned-time.ts';

/** How `matchDate` reads a date. */
export interface DateOptions {
  /** The moment the person wrote; `demain` and `jeudi` count from here. */
  now: Date;
  /** The IANA time zone the person lives in (`Europe/Paris`); `14h` is 14:00 there. */
  timeZone: string;
  /** Refuse a date with no time of day (`jeudi` alone). Default false: it is noon. */
  requireTime?: boolean;
  /** Read `12/11` as 11 December (the default, as in French) or, with true, as 12 November. */
  monthFirst?: boolean;
}

const load = createRequire(import.meta.url);
let loaded: { french: Chrono; dayFirst: Chrono; monthFirst: Chrono } | undefined;

/**
 * chrono-node's French and English parsers, loaded at the first `matchDate` (or at a worker's
 * start, which calls this so that no answer waits for it): a process that loads bots without
 * running them (a campaign import, the linter) does not pay their 8 MiB. The two locales alone:
 * chrono-node's index loads a dozen.
 */
export function dateParsers(): { french: Chrono; dayFirst: Chrono; monthFirst: Chrono } {
  if (!loaded) {
    const en = load('chrono-node/en') as typeof import('chrono-node/en');
    const fr = load('chrono-node/fr') as typeof import('chrono-node/fr');
    loaded = { french: fr.casual, dayFirst: en.GB, monthFirst: en.casual };
  }
  return loaded;
}

/**
 * Reads a date and time from a short answer in French or English with chrono-node:
 * `demain 14h`, `jeudi 9h30`, `le 12/12 à 10h`, `tomorrow at 2pm`, `next monday 10am`,
 * `dans 2 jours`, ISO dates (`2026-12-24T10:00`, with or without an offset). Times are wall-clock
 * times of `timeZone` (summer time included); a weekday or a day without a year is the next one
 * to come; numeric dates are day first unless `monthFirst`. Undefined when there is no date,
 * when two different dates are given (`jeudi ou vendredi`), or, with `requireTime`, no time.
 *
 * @example
 * const now = new Date('2026-12-01T09:00:00+01:00'); // a Tuesday in Paris
 * matchDate('demain 14h', { now, timeZone: 'Europe/Paris' }); // 2026-12-02T13:00:00.000Z
 * matchDate('jeudi 9h30', { now, timeZone: 'Europe/Paris' }); // 2026-12-03T08:30:00.000Z
 * matchDate('tomorrow at 2pm', { now, timeZone: 'America/New_York' }); // 2026-12-02T19:00:00.000Z
 */
export function matchDate(text: string, options: DateOptions): Date | undefined {
  if (!(options?.now instanceof Date) || Number.isNaN(options.now.getTime())) {
    throw new ReplyflowError(
      errorCodes.BOT_DEFINITION_INVALID,
      `matchDate needs { now, timeZone } with now a valid Date (got ${String(options?.now)}): pass the clock's time, new Date(clock.now())`,
    );
  }
  if (typeof text !== 'string') return undefined;
  const reference = {
    instant: options.now,
    timezone: zoneOffsetMinutes(options.now, options.timeZone),
  };
  const parsers = dateParsers();
  const english = options.monthFirst ? parsers.monthFirst : parsers.dayFirst;
  const read = (parser: Chrono) => parser.parse(text, reference, { forwardDate: true });
  const french = read(parsers.french);
  const other = read(english);
  // The reading that understood more of the text wins: `demain 14h` is not "in 14 hours".
  const results = covered(other) > covered(french) ? other : french;
  if (results.length === 0) return undefined;
  if (options.requireTime && results.some((r) => !r.start.isCertain('hour'))) return undefined;
  const dates = results.map((result) => toDate(result, options.timeZone));
  if (dates.some((date) => date.getTime() !== dates[0]!.getTime())) return undefined;
  return dates[0];
}

function covered(results: readonly ParsedResult[]): number {
  return results.reduce((sum, result) => sum + result.text.length, 0);
}

function toDate(result: ParsedResult, timeZone: string): Date {
  const start = result.start;
  // An explicit offset (`…Z`, `+02:00`) or a span from now (`in 3 hours`) is an instant already.
  if (start.isCertain('timezoneOffset') || result.tags().has('result/relativeDate')) {
    return result.date();
  }
  // Otherwise it is a wall-clock time of the zone, whose offset may differ from today's.
  return zonedTimeToDate(
    {
      year: start.get('year')!,
      month: start.get('month')!,
      day: start.get('day')!,
      hour: start.get('hour') ?? 12,
      minute: start.get('minute') ?? 0,
      second: start.get('second') ?? 0,
    },
    timeZone,
  );
}
