import { describe, expect, it } from 'vitest';
import {
  createCompliancePolicy,
  type QuietHours,
} from '../../../src/compliance/create-compliance-policy.ts';
import { quietHoursEnd } from '../../../src/compliance/quiet-hours-end.ts';

function quiet(config: {
  timeZone: string;
  window?: string;
  days?: string[];
  dates?: string[];
}): QuietHours {
  return createCompliancePolicy({ quietHours: config }).quietHours!;
}

/** The end as an ISO string with its zone's offset dropped: easier to read in a failure. */
function end(at: string, hours: QuietHours): string | undefined {
  const found = quietHoursEnd(Date.parse(at), hours);
  return found === undefined ? undefined : new Date(found).toISOString();
}

describe('quietHoursEnd', () => {
  const paris = quiet({ timeZone: 'Europe/Paris', window: '21:00-08:00', days: ['sunday'] });

  it('is undefined outside the window, and the window end inside it, across midnight', () => {
    // Tuesday 24 November 2026, Paris is UTC+1.
    expect(end('2026-11-24T13:00:00+01:00', paris)).toBeUndefined();
    expect(end('2026-11-24T20:59:59+01:00', paris)).toBeUndefined();
    expect(end('2026-11-24T21:00:00+01:00', paris)).toBe('2026-11-25T07:00:00.000Z');
    expect(end('2026-11-24T23:00:00+01:00', paris)).toBe('2026-11-25T07:00:00.000Z');
    expect(end('2026-11-25T03:00:00+01:00', paris)).toBe('2026-11-25T07:00:00.000Z');
    expect(end('2026-11-25T07:59:59+01:00', paris)).toBe('2026-11-25T07:00:00.000Z');
    expect(end('2026-11-25T08:00:00+01:00', paris)).toBeUndefined();
  });

  it('gives the same answers asked in any order (it keeps the last answer and where it holds)', () => {
    const hours = quiet({ timeZone: 'Europe/Paris', window: '21:00-08:00' });
    expect(end('2026-11-25T08:00:30+01:00', hours)).toBeUndefined();
    expect(end('2026-11-25T08:00:00+01:00', hours)).toBeUndefined();
    expect(end('2026-11-25T07:59:59+01:00', hours)).toBe('2026-11-25T07:00:00.000Z');
    expect(end('2026-11-25T02:00:00+01:00', hours)).toBe('2026-11-25T07:00:00.000Z');
    expect(end('2026-11-24T22:00:00+01:00', hours)).toBe('2026-11-25T07:00:00.000Z');
    expect(end('2026-11-24T20:59:59+01:00', hours)).toBeUndefined();
    expect(end('2026-11-25T21:00:00+01:00', hours)).toBe('2026-11-26T07:00:00.000Z');
  });

  it('holds a whole quiet day, joined to the nights around it', () => {
    // Saturday night runs into Sunday, which runs into Monday morning's window.
    expect(end('2026-11-28T22:00:00+01:00', paris)).toBe('2026-11-30T07:00:00.000Z');
    expect(end('2026-11-29T12:00:00+01:00', paris)).toBe('2026-11-30T07:00:00.000Z');
    const sundays = quiet({ timeZone: 'Europe/Paris', days: ['sun'] });
    expect(end('2026-11-29T10:00:00+01:00', sundays)).toBe('2026-11-29T23:00:00.000Z');
    expect(end('2026-11-28T23:59:00+01:00', sundays)).toBeUndefined();
  });

  it('holds quiet dates, yearly or once', () => {
    const holidays = quiet({
      timeZone: 'Europe/Paris',
      window: '21:00-08:00',
      dates: ['12-25', '2026-12-28'],
    });
    expect(end('2026-12-24T22:00:00+01:00', holidays)).toBe('2026-12-26T07:00:00.000Z');
    expect(end('2026-12-28T12:00:00+01:00', holidays)).toBe('2026-12-29T07:00:00.000Z');
    expect(end('2027-12-28T12:00:00+01:00', holidays)).toBeUndefined();
  });

  it('handles a daytime window and one ending at midnight', () => {
    const lunch = quiet({ timeZone: 'UTC', window: '12:00-14:00' });
    expect(end('2026-11-24T12:30:00Z', lunch)).toBe('2026-11-24T14:00:00.000Z');
    expect(end('2026-11-24T14:00:00Z', lunch)).toBeUndefined();
    const evening = quiet({ timeZone: 'UTC', window: '22:00-24:00' });
    expect(end('2026-11-24T23:00:00Z', evening)).toBe('2026-11-25T00:00:00.000Z');
  });

  it('ends at 08:00 local time on the nights Paris changes its clocks', () => {
    const nights = quiet({ timeZone: 'Europe/Paris', window: '21:00-08:00' });
    // 29 March 2026: 02:00 CET becomes 03:00 CEST, so 08:00 is 06:00 UTC, not 07:00.
    expect(end('2026-03-28T23:00:00+01:00', nights)).toBe('2026-03-29T06:00:00.000Z');
    // 25 October 2026: 03:00 CEST becomes 02:00 CET, so 08:00 is 07:00 UTC, not 06:00.
    expect(end('2026-10-24T23:00:00+02:00', nights)).toBe('2026-10-25T07:00:00.000Z');
    expect(end('2026-10-25T02:30:00+01:00', nights)).toBe('2026-10-25T07:00:00.000Z');
  });

  it('ends at 08:00 local time on the nights New York changes its clocks', () => {
    const nights = quiet({ timeZone: 'America/New_York', window: '21:00-08:00' });
    // 8 March 2026: 02:00 EST becomes 03:00 EDT.
    expect(end('2026-03-07T22:00:00-05:00', nights)).toBe('2026-03-08T12:00:00.000Z');
    // 1 November 2026: 02:00 EDT becomes 01:00 EST.
    expect(end('2026-10-31T23:00:00-04:00', nights)).toBe('2026-11-01T13:00:00.000Z');
  });

  it('ends when the clocks jump over the window end, and at the right 01:30 of a repeated hour', () => {
    // 02:30 does not exist in Paris on 29 March 2026: the window ends at the jump, 03:00 CEST.
    const skipped = quiet({ timeZone: 'Europe/Paris', window: '22:00-02:30' });
    expect(end('2026-03-28T23:00:00+01:00', skipped)).toBe('2026-03-29T01:00:00.000Z');
    // 01:30 happens twice in New York on 1 November 2026: first in EDT, then in EST.
    const repeated = quiet({ timeZone: 'America/New_York', window: '21:00-01:30' });
    expect(end('2026-10-31T23:00:00-04:00', repeated)).toBe('2026-11-01T05:30:00.000Z');
    expect(end('2026-11-01T01:10:00-05:00', repeated)).toBe('2026-11-01T06:30:00.000Z');
  });
});
