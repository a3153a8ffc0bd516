import { describe, expect, it } from 'vitest';
import { createCompliancePolicy } from '../../../src/compliance/create-compliance-policy.ts';
import { localTime } from '../../../src/compliance/local-time.ts';
import { isQuietLocal, type QuietHours } from '../../../src/compliance/quiet-hours.ts';
import { quietHoursEnd } from '../../../src/compliance/quiet-hours-end.ts';

/** The first whole minute from `now` on that is not quiet, found by walking minute by minute. */
function walk(now: number, quiet: QuietHours): number | undefined {
  if (!isQuietLocal(localTime(now, quiet.timeZone), quiet)) return undefined;
  let at = Math.ceil(now / 60_000) * 60_000;
  while (isQuietLocal(localTime(at, quiet.timeZone), quiet)) at += 60_000;
  return at;
}

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

// Nights around DST changes, in zones that change by an hour, by 30 minutes (Lord Howe), at
// midnight (Santiago), or never (Kathmandu, +05:45).
const cases: Array<{ timeZone: string; window: string; days?: string[]; around: string }> = [
  {
    timeZone: 'Europe/Paris',
    window: '21:00-08:00',
    days: ['sun'],
    around: '2026-03-29T01:00:00Z',
  },
  { timeZone: 'Europe/Paris', window: '01:30-02:30', around: '2026-03-29T01:00:00Z' },
  { timeZone: 'Europe/Paris', window: '02:15-02:45', around: '2026-10-25T01:00:00Z' },
  { timeZone: 'America/New_York', window: '21:00-08:00', around: '2026-03-08T07:00:00Z' },
  { timeZone: 'America/New_York', window: '00:30-01:30', around: '2026-11-01T06:00:00Z' },
  { timeZone: 'Australia/Lord_Howe', window: '01:45-02:15', around: '2026-10-04T15:00:00Z' },
  {
    timeZone: 'America/Santiago',
    window: '22:00-00:30',
    days: ['sat'],
    around: '2026-09-06T04:00:00Z',
  },
  {
    timeZone: 'Asia/Kathmandu',
    window: '20:00-07:00',
    days: ['fri', 'sat'],
    around: '2026-06-05T12:00:00Z',
  },
];

describe('quietHoursEnd agrees with a minute-by-minute walk', () => {
  it.each(cases)('$timeZone $window around $around', ({ around, ...config }) => {
    const quiet = createCompliancePolicy({ quietHours: config }).quietHours!;
    const next = random(Date.parse(around) / 1000);
    const center = Date.parse(around);
    for (let i = 0; i < 25; i++) {
      const now = Math.floor(center + (next() - 0.5) * 2 * 86_400_000);
      expect({ now: new Date(now).toISOString(), end: quietHoursEnd(now, quiet) }).toEqual({
        now: new Date(now).toISOString(),
        end: walk(now, quiet),
      });
    }
  });
});
