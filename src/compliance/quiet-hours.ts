import { z } from 'zod';
import { isTimeZone, type LocalTime } from './local-time.ts';

/** When a location sends nothing the bot starts on its own, read from its config. */
export interface QuietHours {
  /** IANA time zone the window, days and dates are read in. */
  readonly timeZone: string;
  /**
   * The daily window in minutes after local midnight, `start` included and `end` excluded. It
   * crosses midnight when `end < start` (`21:00-08:00` is 1260 → 480).
   */
  readonly window: { readonly start: number; readonly end: number } | undefined;
  /** Whole quiet days of the week, 0 = Sunday … 6 = Saturday. */
  readonly days: ReadonlySet<number>;
  /** Whole quiet dates: `YYYY-MM-DD` once, `MM-DD` every year (public holidays). */
  readonly dates: ReadonlySet<string>;
}

const dayNames = [
  ['sunday', 'dimanche'],
  ['monday', 'lundi'],
  ['tuesday', 'mardi'],
  ['wednesday', 'mercredi'],
  ['thursday', 'jeudi'],
  ['friday', 'vendredi'],
  ['saturday', 'samedi'],
];
const windowPattern = /^\s*(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})\s*$/;
const datePattern = /^(\d{4}-)?(\d{2})-(\d{2})$/;

/** `sunday`, `Sun`, `dimanche`, `dim` → 0; undefined for anything else. */
function dayIndex(name: string): number | undefined {
  const lower = name.trim().toLowerCase();
  const index = dayNames.findIndex((names) =>
    names.some((day) => lower.length >= 3 && day.startsWith(lower)),
  );
  return index < 0 ? undefined : index;
}

/** `21:00-08:00` → minutes; undefined when it is not such a window. */
function parseWindow(text: string): { start: number; end: number } | undefined {
  const match = windowPattern.exec(text);
  if (!match) return undefined;
  const [sh, sm, eh, em] = match.slice(1).map(Number) as [number, number, number, number];
  // 24:00 is accepted as an end: the window then ends at midnight.
  if (sh > 23 || sm > 59 || eh > 24 || em > 59 || (eh === 24 && em > 0)) return undefined;
  return { start: sh * 60 + sm, end: (eh * 60 + em) % 1440 };
}

function isDate(text: string): boolean {
  const match = datePattern.exec(text);
  if (!match) return false;
  const month = Number(match[2]);
  const day = Number(match[3]);
  const year = match[1] ? Number(match[1].slice(0, 4)) : 2024; // a leap year: 02-29 is valid
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** The `quietHours` section of a location's `compliance` config. */
export const quietHoursConfigSchema = z
  .strictObject({
    /** IANA time zone, such as `Europe/Paris` or `America/New_York`. */
    timeZone: z.string().superRefine((zone, ctx) => {
      if (!isTimeZone(zone)) {
        ctx.addIssue({
          code: 'custom',
          message: `'${zone}' is not a known time zone: use an IANA name such as Europe/Paris or America/New_York`,
        });
      }
    }),
    /** A daily window, `HH:MM-HH:MM`, that may cross midnight: `21:00-08:00`. */
    window: z
      .string()
      .refine((text) => parseWindow(text) !== undefined, {
        error: 'must be a window such as 21:00-08:00 (24-hour clock)',
      })
      .refine((text) => parseWindow(text)?.start !== parseWindow(text)?.end || !parseWindow(text), {
        error: 'starts and ends at the same time: for whole days, use days',
      })
      .optional(),
    /** Whole quiet days of the week: `sunday` (or `sun`, `dimanche`), `saturday`… */
    days: z
      .array(
        z.string().refine((name) => dayIndex(name) !== undefined, {
          error: 'must be a day of the week such as sunday, sun or dimanche',
        }),
      )
      .optional(),
    /** Whole quiet dates in the time zone: `12-25` every year, `2026-05-14` once. */
    dates: z
      .array(z.string().refine(isDate, { error: 'must be a date such as 12-25 or 2026-05-14' }))
      .optional(),
  })
  .superRefine((quiet, ctx) => {
    if (!quiet.window && !quiet.days?.length && !quiet.dates?.length) {
      ctx.addIssue({ code: 'custom', message: 'needs a window, days or dates' });
    }
    const days = new Set((quiet.days ?? []).map(dayIndex));
    if (days.size === 7) {
      ctx.addIssue({
        code: 'custom',
        path: ['days'],
        message: 'names every day of the week: nothing the bot starts would ever be sent',
      });
    }
  });
export type QuietHoursConfig = z.input<typeof quietHoursConfigSchema>;

/** The checked config section as `QuietHours`. */
export function toQuietHours(config: QuietHoursConfig): QuietHours {
  return {
    timeZone: config.timeZone,
    window: config.window === undefined ? undefined : parseWindow(config.window),
    days: new Set((config.days ?? []).map((name) => dayIndex(name)!)),
    dates: new Set(config.dates ?? []),
  };
}

/** True when the wall clock `local` falls in the quiet hours. */
export function isQuietLocal(local: LocalTime, quiet: QuietHours): boolean {
  if (quiet.days.has(local.weekday)) return true;
  if (quiet.dates.size > 0) {
    const monthDay = `${String(local.month).padStart(2, '0')}-${String(local.day).padStart(2, '0')}`;
    if (quiet.dates.has(monthDay) || quiet.dates.has(`${local.year}-${monthDay}`)) return true;
  }
  const window = quiet.window;
  if (!window) return false;
  return window.start < window.end
    ? local.minutes >= window.start && local.minutes < window.end
    : local.minutes >= window.start || local.minutes < window.end;
}
