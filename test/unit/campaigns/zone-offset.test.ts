import { describe, expect, it } from 'vitest';
import {
  instantOfWallTime,
  instantsAtWallTime,
  skipEndAfterWallTime,
  wallTimeOf,
} from '../../../src/campaigns/wall-clock.ts';
import { zoneOffset } from '../../../src/campaigns/zone-offset.ts';
import { toZonedIso } from '../../../src/campaigns/zoned-iso.ts';
import { localTime } from '../../../src/compliance/local-time.ts';

const zones = [
  'Europe/Paris',
  'America/New_York',
  'America/Santiago',
  'Australia/Lord_Howe',
  'Asia/Kathmandu',
  'Pacific/Chatham',
  'UTC',
];
const minuteMs = 60_000;

describe('zoneOffset', () => {
  it('agrees with Intl minute by minute around changes, including half-hour ones mid-hour', () => {
    // Lord Howe moves 30 minutes at 02:00 local (+10:30), which is 15:30 UTC: inside a UTC hour.
    const spans: Array<[string, string]> = [
      ['Australia/Lord_Howe', '2027-10-02T14:00:00Z'],
      ['Australia/Lord_Howe', '2027-04-03T13:00:00Z'],
      ['Europe/Paris', '2027-03-28T00:00:00Z'],
      ['America/New_York', '2027-11-07T05:00:00Z'],
      ['Pacific/Chatham', '2027-09-25T13:00:00Z'],
    ];
    for (const [zone, from] of spans) {
      for (let at = Date.parse(from); at < Date.parse(from) + 4 * 3_600_000; at += minuteMs) {
        expect(zoneOffset(at, zone), `${zone} ${new Date(at).toISOString()}`).toBe(
          localTime(at, zone).offsetMs,
        );
        // Asked again, from the cache.
        expect(zoneOffset(at + 59_999, zone)).toBe(localTime(at + 59_999, zone).offsetMs);
      }
    }
  });

  it('agrees with Intl on instants spread over years', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 2_000; i++) {
      const zone = zones[i % zones.length]!;
      const at = Date.parse('2026-01-01T00:00:00Z') + Math.floor(random() * 4 * 365 * 86_400_000);
      expect(zoneOffset(at, zone)).toBe(localTime(at, zone).offsetMs);
    }
  });
});

describe('wall times', () => {
  const wall = (text: string) => Date.parse(`${text}Z`);
  const iso = (ms: number) => new Date(ms).toISOString();

  it('finds one instant for a plain wall time, none in a gap, two in a repeated hour', () => {
    expect(instantsAtWallTime(wall('2027-12-06T09:00:00'), 'Europe/Paris').map(iso)).toEqual([
      '2027-12-06T08:00:00.000Z',
    ]);
    expect(instantsAtWallTime(wall('2027-03-28T02:30:00'), 'Europe/Paris')).toEqual([]);
    expect(instantsAtWallTime(wall('2027-10-31T02:30:00'), 'Europe/Paris').map(iso)).toEqual([
      '2027-10-31T00:30:00.000Z',
      '2027-10-31T01:30:00.000Z',
    ]);
  });

  it('round-trips an instant through its wall time in every zone', () => {
    for (const zone of zones) {
      const at = Date.parse('2027-06-15T12:34:56.789Z');
      expect(instantOfWallTime(wallTimeOf(at, zone), zone)).toBe(at);
    }
  });

  it('finds the jump over a skipped wall time, on the second', () => {
    expect(iso(skipEndAfterWallTime(wall('2027-03-28T02:30:00'), 'Europe/Paris')!)).toBe(
      '2027-03-28T01:00:00.000Z',
    );
    expect(iso(skipEndAfterWallTime(wall('2027-10-03T02:10:00'), 'Australia/Lord_Howe')!)).toBe(
      '2027-10-02T15:30:00.000Z',
    );
    expect(skipEndAfterWallTime(wall('2027-03-28T03:30:00'), 'Europe/Paris')).toBeUndefined();
  });
});

describe('toZonedIso', () => {
  it('writes the wall time with its offset, Z for UTC, milliseconds only when there are some', () => {
    const at = Date.parse('2027-12-06T08:00:00Z');
    expect(toZonedIso(at, 'Europe/Paris')).toBe('2027-12-06T09:00:00+01:00');
    expect(toZonedIso(at, 'America/New_York')).toBe('2027-12-06T03:00:00-05:00');
    expect(toZonedIso(at, 'Asia/Kathmandu')).toBe('2027-12-06T13:45:00+05:45');
    expect(toZonedIso(at, 'UTC')).toBe('2027-12-06T08:00:00Z');
    expect(toZonedIso(at + 42, 'Europe/Paris')).toBe('2027-12-06T09:00:00.042+01:00');
    expect(Date.parse(toZonedIso(at + 42, 'Pacific/Chatham'))).toBe(at + 42);
  });
});
