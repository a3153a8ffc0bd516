import { describe, expect, it } from 'vitest';
import {
  checkSendTimeSpec,
  type SendTimeSpec,
  sendTimeOf,
} from '../../../src/campaigns/send-time.ts';
import { ValidationError } from '../../../src/errors.ts';

const at = (iso: string) => Date.parse(iso);
const hourMs = 3_600_000;
// Monday 1 November 2027, 10:00 in Paris (UTC+1).
const now = at('2027-11-01T10:00:00+01:00');

function outcome(spec: SendTimeSpec, row: Record<string, unknown>, when = now) {
  const result = sendTimeOf(spec, row, when);
  return 'at' in result ? { at: new Date(result.at).toISOString() } : result;
}

const reminder: SendTimeSpec = {
  relativeTo: 'appointment',
  offset: '-1d',
  timeZone: 'Europe/Paris',
  past: { kind: 'skip' },
};

describe('sendTimeOf, relative to a date in the row', () => {
  it('reads every date form the file may hold', () => {
    const expected = { at: '2027-12-05T08:00:00.000Z' };
    expect(outcome(reminder, { appointment: '2027-12-06T09:00:00+01:00' })).toEqual(expected);
    expect(outcome(reminder, { appointment: '2027-12-06T09:00' })).toEqual(expected);
    expect(outcome(reminder, { appointment: '2027-12-06 09:00' })).toEqual(expected);
    expect(outcome(reminder, { appointment: '2027-12-06' })).toEqual({
      at: '2027-12-04T23:00:00.000Z',
    });
  });

  it('reads a date without offset in the recipient time zone given', () => {
    const newYork = { ...reminder, timeZone: 'America/New_York' };
    expect(outcome(newYork, { appointment: '2027-12-06T09:00' })).toEqual({
      at: '2027-12-05T14:00:00.000Z',
    });
    // An instant with its offset is the same instant for everyone.
    expect(outcome(newYork, { appointment: '2027-12-06T09:00:00+01:00' })).toEqual({
      at: '2027-12-05T08:00:00.000Z',
    });
  });

  it('keeps the local hour for a day offset across a DST change', () => {
    // The appointment is on Monday 1 November 2027 at 18:00 (UTC+1); the day before is still UTC+2.
    const early = at('2027-10-29T10:00:00+02:00');
    expect(outcome(reminder, { appointment: '2027-11-01T18:00' }, early)).toEqual({
      at: '2027-10-31T17:00:00.000Z',
    });
    expect(outcome(reminder, { appointment: '2027-11-01T18:00' }, early)).toEqual({
      at: new Date(at('2027-10-31T18:00:00+01:00')).toISOString(),
    });
    const hoursBefore = { ...reminder, offset: '-48h' };
    expect(outcome(hoursBefore, { appointment: '2027-11-01T18:00' }, early)).toEqual({
      at: '2027-10-30T17:00:00.000Z',
    });
  });

  it('moves a time outside the window to its next opening, after the offset', () => {
    const windowed = { ...reminder, window: '09:00-19:00' };
    // The day before at 08:00 → 09:00; at 20:00 → 09:00 the next day (the appointment's own day).
    expect(outcome(windowed, { appointment: '2027-12-06T08:00' })).toEqual({
      at: '2027-12-05T08:00:00.000Z',
    });
    expect(outcome(windowed, { appointment: '2027-12-06T20:00' })).toEqual({
      at: '2027-12-06T08:00:00.000Z',
    });
    expect(outcome(windowed, { appointment: '2027-12-06T12:00' })).toEqual({
      at: '2027-12-05T11:00:00.000Z',
    });
  });

  it('gives bad_date with the value and the forms it takes, never a guess', () => {
    expect(outcome(reminder, { appointment: '06/12/2027 09:00' })).toEqual({
      skip: 'bad_date',
      message:
        "'06/12/2027 09:00' in column 'appointment' is not a date: write 2027-12-06, 2027-12-06T09:00 (in the time zone) or 2027-12-06T09:00:00+01:00",
    });
    expect(outcome(reminder, { appointment: '2027-02-30' })).toMatchObject({ skip: 'bad_date' });
    expect(outcome(reminder, {})).toEqual({
      skip: 'bad_date',
      message: "no date in column 'appointment'",
    });
    expect(outcome(reminder, { appointment: '' })).toMatchObject({ skip: 'bad_date' });
    expect(outcome(reminder, { appointment: null })).toMatchObject({ skip: 'bad_date' });
    expect(outcome(reminder, { appointment: 1796342400000 })).toEqual({
      skip: 'bad_date',
      message:
        "a number in column 'appointment' is not a date: write 2027-12-06, 2027-12-06T09:00 (in the time zone) or 2027-12-06T09:00:00+01:00",
    });
  });
});

describe('sendTimeOf, a time already past', () => {
  it('skips it as past_due, saying when it was due and how late it is', () => {
    // The day before an appointment on 1 November at 18:00 was 31 October at 18:00.
    expect(outcome(reminder, { appointment: '2027-11-01T18:00' })).toEqual({
      skip: 'past_due',
      message: 'was due 2027-10-31T18:00:00+01:00, 16 h ago',
    });
  });

  it('sends now when sendIfWithin allows the lateness, and skips beyond it', () => {
    const lenient = {
      ...reminder,
      offset: '-2h',
      past: { kind: 'sendIfWithin', ms: 6 * hourMs },
    } as const;
    // Due 09:00 (one hour ago): sent now.
    expect(outcome(lenient, { appointment: '2027-11-01T11:00' })).toEqual({
      at: new Date(now).toISOString(),
    });
    // Due exactly 6 hours ago: still sent.
    expect(outcome(lenient, { appointment: '2027-11-01T06:00' })).toEqual({
      at: new Date(now).toISOString(),
    });
    // Due 6 hours and a minute ago: past_due.
    expect(outcome(lenient, { appointment: '2027-11-01T05:59' })).toEqual({
      skip: 'past_due',
      message: 'was due 2027-11-01T03:59:00+01:00, 6 h 1 min ago: later than the 6 h allowed',
    });
  });

  it('sends a late recipient at the next opening of the window when now is outside it', () => {
    const lenient = {
      ...reminder,
      offset: '-2h',
      window: '09:00-19:00',
      past: { kind: 'sendIfWithin', ms: 6 * hourMs },
    } as const;
    const evening = at('2027-11-01T20:00:00+01:00');
    // Due 18:00 (inside the window), two hours late, now is outside: tomorrow 09:00.
    expect(outcome(lenient, { appointment: '2027-11-01T20:00' }, evening)).toEqual({
      at: '2027-11-02T08:00:00.000Z',
    });
  });

  it('counts lateness from the window opening the time was moved to', () => {
    const windowed = { ...reminder, offset: '-12h', window: '09:00-19:00' };
    // 12 hours before 20:00 is 08:00, moved to 09:00: one hour before now, so past_due.
    expect(outcome(windowed, { appointment: '2027-11-01T20:00' })).toEqual({
      skip: 'past_due',
      message: 'was due 2027-11-01T09:00:00+01:00, 1 h ago',
    });
    // 12 hours before 23:00 is 11:00: ahead.
    expect(outcome(windowed, { appointment: '2027-11-01T23:00' })).toEqual({
      at: '2027-11-01T10:00:00.000Z',
    });
  });

  it('is not past when due exactly now', () => {
    const zero = { ...reminder, offset: '0m' };
    expect(outcome(zero, { appointment: '2027-11-01T10:00' })).toEqual({
      at: new Date(now).toISOString(),
    });
  });
});

describe('sendTimeOf, at a fixed time', () => {
  const fixed = { timeZone: 'Europe/Paris', past: { kind: 'skip' } } as const;

  it('sends now when no time is given, or at the next opening of the window', () => {
    expect(outcome(fixed, {})).toEqual({ at: new Date(now).toISOString() });
    expect(outcome({ ...fixed, window: '12:00-14:00' }, {})).toEqual({
      at: '2027-11-01T11:00:00.000Z',
    });
  });

  it('reads a wall time in each recipient time zone, and an instant as itself', () => {
    const morning = { ...fixed, at: '2027-11-02T09:00' };
    expect(outcome(morning, {})).toEqual({ at: '2027-11-02T08:00:00.000Z' });
    expect(outcome({ ...morning, timeZone: 'America/New_York' }, {})).toEqual({
      at: '2027-11-02T13:00:00.000Z',
    });
    const instant = { ...fixed, at: '2027-11-02T09:00:00Z' };
    expect(outcome({ ...instant, timeZone: 'America/New_York' }, {})).toEqual({
      at: '2027-11-02T09:00:00.000Z',
    });
  });

  it('applies the past policy to it too', () => {
    expect(outcome({ ...fixed, at: '2027-11-01T09:00' }, {})).toEqual({
      skip: 'past_due',
      message: 'was due 2027-11-01T09:00:00+01:00, 1 h ago',
    });
    const lenient = {
      ...fixed,
      at: '2027-11-01T09:00',
      past: { kind: 'sendIfWithin', ms: hourMs },
    } as const;
    expect(outcome(lenient, {})).toEqual({ at: new Date(now).toISOString() });
  });
});

describe('checkSendTimeSpec', () => {
  const refusal = (spec: SendTimeSpec) => {
    try {
      checkSendTimeSpec(spec);
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      return { field: (error as ValidationError).field, message: (error as Error).message };
    }
    return undefined;
  };

  it('accepts a sound spec', () => {
    expect(refusal({ ...reminder, window: '09:00-19:00' })).toBeUndefined();
    expect(
      refusal({ at: '2027-12-06T09:00', timeZone: 'UTC', past: { kind: 'skip' } }),
    ).toBeUndefined();
  });

  it('names the field of each mistake, before any row is read', () => {
    expect(refusal({ ...reminder, timeZone: 'Europe/Pariss' })).toEqual({
      field: 'timeZone',
      message:
        "'Europe/Pariss' is not a known time zone: use an IANA name such as Europe/Paris or America/New_York",
    });
    expect(refusal({ ...reminder, window: '9-19' })?.field).toBe('window');
    expect(refusal({ ...reminder, offset: '1d' })?.field).toBe('offset');
    expect(refusal({ ...reminder, relativeTo: ' ' })?.field).toBe('relativeTo');
    expect(refusal({ at: 'next monday', timeZone: 'UTC', past: { kind: 'skip' } })?.field).toBe(
      'at',
    );
    expect(refusal({ ...reminder, past: { kind: 'sendIfWithin', ms: -1 } })?.field).toBe('past');
  });

  it('makes sendTimeOf throw on the same mistakes rather than blame each row', () => {
    expect(() =>
      sendTimeOf({ ...reminder, offset: '1d' }, { appointment: '2027-12-06' }, now),
    ).toThrow(ValidationError);
    expect(() =>
      sendTimeOf({ at: 'soon', timeZone: 'UTC', past: { kind: 'skip' } }, {}, now),
    ).toThrow(ValidationError);
  });
});
