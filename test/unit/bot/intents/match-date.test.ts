import { describe, expect, it } from 'vitest';
import { matchDate } from '../../../../src/index.ts';

// Tuesday 1 December 2026, 09:00 in Paris (08:00 UTC, 03:00 in New York).
const now = new Date('2026-12-01T08:00:00Z');
const paris = { now, timeZone: 'Europe/Paris' };
const newYork = { now, timeZone: 'America/New_York' };

const cases: [string, typeof paris, string | undefined][] = [
  ['demain 14h', paris, '2026-12-02T13:00:00.000Z'],
  ['demain 14h', newYork, '2026-12-02T19:00:00.000Z'],
  ['Demain à 14h30', paris, '2026-12-02T13:30:00.000Z'],
  ['jeudi 9h30', paris, '2026-12-03T08:30:00.000Z'],
  ['jeudi 9h30', newYork, '2026-12-03T14:30:00.000Z'],
  // a weekday that has passed this week is next week's
  ['lundi 10h', paris, '2026-12-07T09:00:00.000Z'],
  ['le 12/12 à 10h', paris, '2026-12-12T09:00:00.000Z'],
  ['le 12/12 à 10h', newYork, '2026-12-12T15:00:00.000Z'],
  ['le 3/12 à 10h', paris, '2026-12-03T09:00:00.000Z'],
  ['le 12 décembre à 10h', paris, '2026-12-12T09:00:00.000Z'],
  ['Je peux jeudi à 9h30 si ça vous va', paris, '2026-12-03T08:30:00.000Z'],
  ['tomorrow at 2pm', paris, '2026-12-02T13:00:00.000Z'],
  ['tomorrow at 2pm', newYork, '2026-12-02T19:00:00.000Z'],
  ['next monday 10am', newYork, '2026-12-07T15:00:00.000Z'],
  ['Thursday 9:30 works', paris, '2026-12-03T08:30:00.000Z'],
  ['2026-12-24T10:00:00Z', paris, '2026-12-24T10:00:00.000Z'],
  ['2026-12-24T10:00:00+01:00', newYork, '2026-12-24T09:00:00.000Z'],
  ['2026-12-24 10:00', paris, '2026-12-24T09:00:00.000Z'],
  ['2026-12-24 10:00', newYork, '2026-12-24T15:00:00.000Z'],
  // summer time: 10:00 in Paris on 30 March 2027 is 08:00 UTC, although today is winter
  ['le 30 mars à 10h', paris, '2027-03-30T08:00:00.000Z'],
  ['le 30 mars à 10h', newYork, '2027-03-30T14:00:00.000Z'],
  // a day without a time is noon there
  ['jeudi', paris, '2026-12-03T11:00:00.000Z'],
  ['in 3 hours', newYork, '2026-12-01T11:00:00.000Z'],
  // refusals
  ['jeudi ou vendredi', paris, undefined],
  ['je ne sais pas', paris, undefined],
  ['oui', paris, undefined],
  ['', paris, undefined],
];

describe('matchDate', () => {
  it.each(cases)('reads %j in %o', (text, options, expected) => {
    expect(matchDate(text, options)?.toISOString()).toBe(expected);
  });

  it('reads numeric dates day first, or month first when asked', () => {
    expect(matchDate('12/11 at 10am', newYork)?.toISOString()).toBe('2027-11-12T15:00:00.000Z');
    expect(matchDate('12/11 at 10am', { ...newYork, monthFirst: true })?.toISOString()).toBe(
      '2026-12-11T15:00:00.000Z',
    );
  });

  it('refuses a day without a time when a time is required', () => {
    expect(matchDate('jeudi', { ...paris, requireTime: true })).toBeUndefined();
    expect(matchDate('jeudi 10h', { ...paris, requireTime: true })?.toISOString()).toBe(
      '2026-12-03T09:00:00.000Z',
    );
  });

  it('counts from now in the zone: just before midnight in New York, demain is the next day there', () => {
    const late = { now: new Date('2026-12-02T04:30:00Z'), timeZone: 'America/New_York' };
    // 23:30 on 1 December in New York, 05:30 on 2 December in Paris.
    expect(matchDate('demain 9h', late)?.toISOString()).toBe('2026-12-02T14:00:00.000Z');
    expect(matchDate('demain 9h', { ...late, timeZone: 'Europe/Paris' })?.toISOString()).toBe(
      '2026-12-03T08:00:00.000Z',
    );
  });

  it('names an unknown time zone and says what to write', () => {
    expect(() => matchDate('demain', { now, timeZone: 'Paris' })).toThrow(
      /time zone 'Paris' is unknown: use an IANA name such as Europe\/Paris/,
    );
  });
});
