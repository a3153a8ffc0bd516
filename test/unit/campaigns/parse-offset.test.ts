import { describe, expect, it } from 'vitest';
import { applyOffset, parseOffset } from '../../../src/campaigns/parse-offset.ts';
import { ValidationError } from '../../../src/errors.ts';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();
const hours = (ms: number) => ms / 3_600_000;

describe('parseOffset', () => {
  it('reads minutes and hours as durations, days and weeks as calendar days', () => {
    expect(parseOffset('-24h')).toEqual({ kind: 'duration', ms: -86_400_000 });
    expect(parseOffset('-90m')).toEqual({ kind: 'duration', ms: -5_400_000 });
    expect(parseOffset('+30m')).toEqual({ kind: 'duration', ms: 1_800_000 });
    expect(parseOffset('-1d')).toEqual({ kind: 'days', days: -1 });
    expect(parseOffset('+3d')).toEqual({ kind: 'days', days: 3 });
    expect(parseOffset('-2w')).toEqual({ kind: 'days', days: -14 });
    expect(parseOffset(' +1h ')).toEqual({ kind: 'duration', ms: 3_600_000 });
  });

  it('accepts zero with or without a sign, and never gives -0', () => {
    expect(parseOffset('0m')).toEqual({ kind: 'duration', ms: 0 });
    expect(parseOffset('+0h')).toEqual({ kind: 'duration', ms: 0 });
    const minusZero = parseOffset('-0d');
    expect(minusZero.kind).toBe('days');
    expect(Object.is(minusZero.kind === 'days' ? minusZero.days : Number.NaN, 0)).toBe(true);
  });

  it('asks for a sign on a non-zero amount, naming both readings', () => {
    expect(() => parseOffset('1d')).toThrow(
      "'1d' needs a sign: -1d for before the date, +1d for after",
    );
  });

  it.each([
    '',
    '-',
    'd',
    '-1',
    '-1.5h',
    '-1M',
    '-1H',
    '-1y',
    '-1s',
    '--1d',
    '-1 d',
    '-1d2h',
    '-1day',
    'yesterday',
    '-123456d',
  ])('refuses %j with the forms it takes', (text) => {
    let error: unknown;
    try {
      parseOffset(text);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).code).toBe('INPUT_INVALID');
    expect((error as ValidationError).field).toBe('offset');
    expect((error as Error).message).toBe(
      `'${text}' is not an offset: write a sign, a whole number and a unit: m (minutes), h (hours), d (days) or w (weeks), such as -24h, +30m, -1d or +2w`,
    );
  });
});

describe('applyOffset', () => {
  it('moves minutes and hours by the exact duration, across a DST change too', () => {
    // Paris went from UTC+1 to UTC+2 at 01:00 UTC on Sunday 28 March 2027.
    const sunday = at('2027-03-28T09:00:00+02:00');
    expect(iso(applyOffset(sunday, '-24h', 'Europe/Paris'))).toBe('2027-03-27T07:00:00.000Z');
    expect(iso(applyOffset(sunday, '-90m', 'Europe/Paris'))).toBe('2027-03-28T05:30:00.000Z');
    expect(iso(applyOffset(sunday, '+30m', 'Europe/Paris'))).toBe('2027-03-28T07:30:00.000Z');
    expect(applyOffset(sunday, '0m', 'Europe/Paris')).toBe(sunday);
  });

  it('keeps the wall time for days across spring forward: 23 hours', () => {
    const sunday = at('2027-03-28T09:00:00+02:00');
    const saturday = applyOffset(sunday, '-1d', 'Europe/Paris');
    expect(iso(saturday)).toBe(iso(at('2027-03-27T09:00:00+01:00')));
    expect(hours(sunday - saturday)).toBe(23);
    expect(applyOffset(saturday, '+1d', 'Europe/Paris')).toBe(sunday);
    // The day after the change is a plain 24 hours.
    expect(
      hours(
        at('2027-03-29T09:00:00+02:00') -
          applyOffset(at('2027-03-29T09:00:00+02:00'), '-1d', 'Europe/Paris'),
      ),
    ).toBe(24);
  });

  it('keeps the wall time for days across fall back: 25 hours', () => {
    // Paris went back from UTC+2 to UTC+1 at 01:00 UTC on Sunday 31 October 2027.
    const monday = at('2027-11-01T09:00:00+01:00');
    const twoDaysBefore = applyOffset(monday, '-2d', 'Europe/Paris');
    expect(iso(twoDaysBefore)).toBe(iso(at('2027-10-30T09:00:00+02:00')));
    expect(hours(monday - twoDaysBefore)).toBe(49);
    const sunday = at('2027-10-31T09:00:00+01:00');
    expect(hours(sunday - applyOffset(sunday, '-1d', 'Europe/Paris'))).toBe(25);
  });

  it('keeps the wall time for weeks, in New York as in Paris', () => {
    // New York went from UTC-5 to UTC-4 on 14 March 2027.
    const after = at('2027-03-18T12:00:00-04:00');
    expect(iso(applyOffset(after, '-1w', 'America/New_York'))).toBe(
      iso(at('2027-03-11T12:00:00-05:00')),
    );
    expect(iso(applyOffset(at('2027-04-01T09:00:00+02:00'), '-1w', 'Europe/Paris'))).toBe(
      iso(at('2027-03-25T09:00:00+01:00')),
    );
  });

  it('moves a wall time the clocks skip past the jump, and reads a repeated one as its first occurrence', () => {
    // 02:30 did not exist in Paris on 28 March 2027: 03:30 CEST, as Temporal and RFC 5545 read it.
    expect(iso(applyOffset(at('2027-03-29T02:30:00+02:00'), '-1d', 'Europe/Paris'))).toBe(
      '2027-03-28T01:30:00.000Z',
    );
    // 02:30 happened twice on 31 October 2027: the first time, still UTC+2.
    expect(iso(applyOffset(at('2027-11-01T02:30:00+01:00'), '-1d', 'Europe/Paris'))).toBe(
      '2027-10-31T00:30:00.000Z',
    );
  });

  it('is the same instant in every zone for exact durations, and differs by zone for days', () => {
    const instant = at('2027-03-13T17:00:00Z');
    expect(applyOffset(instant, '+24h', 'Europe/Paris')).toBe(
      applyOffset(instant, '+24h', 'America/New_York'),
    );
    // +1d crosses New York's change (14 March) but not Paris's (28 March).
    expect(hours(applyOffset(instant, '+1d', 'America/New_York') - instant)).toBe(23);
    expect(hours(applyOffset(instant, '+1d', 'Europe/Paris') - instant)).toBe(24);
  });

  it('takes a parsed offset as well as its text', () => {
    const instant = at('2027-03-28T09:00:00+02:00');
    expect(applyOffset(instant, parseOffset('-1d'), 'Europe/Paris')).toBe(
      applyOffset(instant, '-1d', 'Europe/Paris'),
    );
  });
});
