import { describe, expect, it } from 'vitest';
import { nextInWindow, parseDeliveryWindow } from '../../../src/campaigns/delivery-window.ts';
import { ValidationError } from '../../../src/errors.ts';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();
const next = (when: string, window: string, zone = 'Europe/Paris') =>
  iso(nextInWindow(at(when), window, zone));

describe('parseDeliveryWindow', () => {
  it('reads minutes after midnight, across midnight and up to 24:00', () => {
    expect(parseDeliveryWindow('09:00-19:00')).toEqual({ start: 540, end: 1140 });
    expect(parseDeliveryWindow('21:00-08:00')).toEqual({ start: 1260, end: 480 });
    expect(parseDeliveryWindow('9:30 - 19:00')).toEqual({ start: 570, end: 1140 });
    expect(parseDeliveryWindow('09:00-24:00')).toEqual({ start: 540, end: 0 });
  });

  it.each([
    ['9-19', 'is not a window: write HH:MM-HH:MM'],
    ['09:00', 'is not a window: write HH:MM-HH:MM'],
    ['09h00-19h00', 'is not a window: write HH:MM-HH:MM'],
    ['', 'is not a window: write HH:MM-HH:MM'],
    ['25:00-26:00', 'hours run from 00 to 23'],
    ['09:60-10:00', 'minutes 00 to 59'],
    ['24:00-08:00', '24:00 only as an end'],
    ['09:00-24:30', '24:00 only as an end'],
    ['19:00-19:00', 'starts and ends at the same time'],
    ['00:00-24:00', 'starts and ends at the same time'],
  ])('refuses %j, saying why', (text, why) => {
    let error: unknown;
    try {
      parseDeliveryWindow(text);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).field).toBe('window');
    expect((error as Error).message).toContain(`'${text}'`);
    expect((error as Error).message).toContain(why);
  });
});

describe('nextInWindow', () => {
  // Wednesday 1 December 2027: Paris is UTC+1.
  it('keeps a time inside the window, the start included and the end excluded', () => {
    expect(next('2027-12-01T12:00:00+01:00', '09:00-19:00')).toBe('2027-12-01T11:00:00.000Z');
    expect(next('2027-12-01T09:00:00+01:00', '09:00-19:00')).toBe('2027-12-01T08:00:00.000Z');
    expect(next('2027-12-01T18:59:59.999+01:00', '09:00-19:00')).toBe('2027-12-01T17:59:59.999Z');
    expect(next('2027-12-01T19:00:00+01:00', '09:00-19:00')).toBe('2027-12-02T08:00:00.000Z');
  });

  it('moves a time before the opening to that day, and one after the close to the next day', () => {
    expect(next('2027-12-01T06:00:00+01:00', '09:00-19:00')).toBe('2027-12-01T08:00:00.000Z');
    expect(next('2027-12-01T08:59:59.999+01:00', '09:00-19:00')).toBe('2027-12-01T08:00:00.000Z');
    expect(next('2027-12-01T23:30:00+01:00', '09:00-19:00')).toBe('2027-12-02T08:00:00.000Z');
    // Reads the wall clock of the zone asked, not the machine's.
    expect(next('2027-12-01T23:30:00+01:00', '09:00-19:00', 'America/New_York')).toBe(
      '2027-12-01T22:30:00.000Z',
    );
    expect(next('2027-12-01T10:00:00+01:00', '09:00-19:00', 'America/New_York')).toBe(
      '2027-12-01T14:00:00.000Z',
    );
  });

  it('handles a window across midnight and one that runs to midnight', () => {
    expect(next('2027-12-01T22:00:00+01:00', '21:00-08:00')).toBe('2027-12-01T21:00:00.000Z');
    expect(next('2027-12-02T03:00:00+01:00', '21:00-08:00')).toBe('2027-12-02T02:00:00.000Z');
    expect(next('2027-12-02T08:00:00+01:00', '21:00-08:00')).toBe('2027-12-02T20:00:00.000Z');
    expect(next('2027-12-02T12:00:00+01:00', '21:00-08:00')).toBe('2027-12-02T20:00:00.000Z');
    expect(next('2027-12-01T23:59:00+01:00', '09:00-24:00')).toBe('2027-12-01T22:59:00.000Z');
    expect(next('2027-12-02T00:00:00+01:00', '09:00-24:00')).toBe('2027-12-02T08:00:00.000Z');
  });

  it('opens at the local hour on the days the clocks change, both ways', () => {
    // Spring forward (28 March 2027): Saturday 20:00 UTC+1 → Sunday 09:00 UTC+2, 12 hours later.
    expect(next('2027-03-27T20:00:00+01:00', '09:00-19:00')).toBe('2027-03-28T07:00:00.000Z');
    // Fall back (31 October 2027): Saturday 20:00 UTC+2 → Sunday 09:00 UTC+1, 14 hours later.
    expect(next('2027-10-30T20:00:00+02:00', '09:00-19:00')).toBe('2027-10-31T08:00:00.000Z');
    // New York: 14 March and 7 November 2027.
    expect(next('2027-03-13T20:00:00-05:00', '08:00-20:00', 'America/New_York')).toBe(
      '2027-03-14T12:00:00.000Z',
    );
    expect(next('2027-11-06T21:00:00-04:00', '08:00-20:00', 'America/New_York')).toBe(
      '2027-11-07T13:00:00.000Z',
    );
  });

  it('opens a window whose start the clocks skip at the jump, the first valid instant after it', () => {
    // Paris skipped 02:00-03:00 on 28 March 2027: a 02:30 opening is 03:00 UTC+2 that day.
    expect(next('2027-03-28T00:00:00+01:00', '02:30-06:00')).toBe('2027-03-28T01:00:00.000Z');
    expect(next('2027-03-28T01:59:59+01:00', '02:30-06:00')).toBe('2027-03-28T01:00:00.000Z');
    // It is inside the window from the jump on, and the day after opens at 02:30 again.
    expect(next('2027-03-28T03:10:00+02:00', '02:30-06:00')).toBe('2027-03-28T01:10:00.000Z');
    expect(next('2027-03-28T07:00:00+02:00', '02:30-06:00')).toBe('2027-03-29T00:30:00.000Z');
    // New York skipped 02:00-03:00 on 14 March 2027.
    expect(next('2027-03-14T00:00:00-05:00', '02:15-05:00', 'America/New_York')).toBe(
      '2027-03-14T07:00:00.000Z',
    );
  });

  it('opens a window whose start the clocks repeat at its first occurrence, or its second when the first is past', () => {
    // New York repeated 01:00-02:00 on 7 November 2027 (EDT, then EST).
    const window = '01:30-01:45';
    const zone = 'America/New_York';
    expect(next('2027-11-07T00:00:00-04:00', window, zone)).toBe('2027-11-07T05:30:00.000Z');
    expect(next('2027-11-07T01:40:00-04:00', window, zone)).toBe('2027-11-07T05:40:00.000Z');
    // 01:50 EDT: the wall clock reads 01:30 again 40 minutes later, in EST.
    expect(next('2027-11-07T01:50:00-04:00', window, zone)).toBe('2027-11-07T06:30:00.000Z');
    expect(next('2027-11-07T01:50:00-05:00', window, zone)).toBe('2027-11-08T06:30:00.000Z');
  });

  it('takes a parsed window as well as its text', () => {
    const when = at('2027-12-01T06:00:00+01:00');
    expect(nextInWindow(when, parseDeliveryWindow('09:00-19:00'), 'Europe/Paris')).toBe(
      nextInWindow(when, '09:00-19:00', 'Europe/Paris'),
    );
  });
});
