import { describe, expect, it } from 'vitest';
import { parseDateValue } from '../../../src/campaigns/parse-date-value.ts';

const read = (text: string, zone = 'Europe/Paris') => {
  const ms = parseDateValue(text, zone);
  return ms === undefined ? undefined : new Date(ms).toISOString();
};

describe('parseDateValue', () => {
  it('reads an instant with its offset, whatever the time zone', () => {
    expect(read('2027-12-06T09:00:00+01:00')).toBe('2027-12-06T08:00:00.000Z');
    expect(read('2027-12-06T09:00:00-05:00')).toBe('2027-12-06T14:00:00.000Z');
    expect(read('2027-12-06T09:00:00-0500', 'Asia/Tokyo')).toBe('2027-12-06T14:00:00.000Z');
    expect(read('2027-12-06T09:00Z', 'Asia/Tokyo')).toBe('2027-12-06T09:00:00.000Z');
    expect(read('2027-12-06T09:00:00.5Z')).toBe('2027-12-06T09:00:00.500Z');
    expect(read('2027-12-06T09:00:00.123456789+00:00')).toBe('2027-12-06T09:00:00.123Z');
  });

  it('reads a date-time without offset as a wall time in the time zone, with T or a space', () => {
    expect(read('2027-12-06T09:00')).toBe('2027-12-06T08:00:00.000Z');
    expect(read('2027-12-06 09:00')).toBe('2027-12-06T08:00:00.000Z');
    expect(read(' 2027-12-06 09:00:30 ')).toBe('2027-12-06T08:00:30.000Z');
    expect(read('2027-12-06T09:00', 'America/New_York')).toBe('2027-12-06T14:00:00.000Z');
    // Summer time in Paris: UTC+2.
    expect(read('2027-07-06T09:00')).toBe('2027-07-06T07:00:00.000Z');
  });

  it('reads a date alone as local midnight', () => {
    expect(read('2027-12-06')).toBe('2027-12-05T23:00:00.000Z');
    expect(read('2027-12-06', 'America/New_York')).toBe('2027-12-06T05:00:00.000Z');
  });

  it('reads a wall time the clocks skip past the jump, and a repeated one as its first occurrence', () => {
    expect(read('2027-03-28T02:30')).toBe('2027-03-28T01:30:00.000Z');
    expect(read('2027-10-31T02:30')).toBe('2027-10-31T00:30:00.000Z');
    // Midnight the clocks skip (Santiago moves 00:00 → 01:00 in September).
    expect(read('2027-09-05', 'America/Santiago')).toBe('2027-09-05T04:00:00.000Z');
  });

  it.each([
    '',
    'tomorrow',
    '06/12/2027',
    '2027-12-6',
    '2027-02-30',
    '2027-13-01',
    '2027-00-10',
    '2027-12-06T24:00',
    '2027-12-06T09:60',
    '2027-12-06T09:00:60',
    '2027-12-06T09',
    '2027-12-06T9:00',
    '2027-12-06T09:00+25:00',
    '2027-12-06+01:00',
    '1796342400000',
  ])('refuses %j', (text) => {
    expect(parseDateValue(text, 'Europe/Paris')).toBeUndefined();
  });

  it('accepts 29 February only in a leap year', () => {
    expect(read('2028-02-29')).toBe('2028-02-28T23:00:00.000Z');
    expect(read('2027-02-29')).toBeUndefined();
  });
});
