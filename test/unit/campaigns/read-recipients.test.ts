import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type ExcludedRow,
  type ReadRecipientsOptions,
  type Recipient,
  readRecipients,
} from '../../../src/campaigns/read-recipients.ts';
import type { SendTimeSpec } from '../../../src/campaigns/send-time.ts';
import { ConfigError, ValidationError } from '../../../src/errors.ts';

// Monday 1 November 2027, 10:00 in Paris (UTC+1).
const now = Date.parse('2027-11-01T10:00:00+01:00');
const reminder: SendTimeSpec = {
  relativeTo: 'at',
  offset: '-1d',
  timeZone: 'Europe/Paris',
  past: { kind: 'skip' },
};

async function* bytes(text: string) {
  yield Buffer.from(text);
}

type Result = Recipient | ExcludedRow;

async function read(text: string, options: Partial<ReadRecipientsOptions> = {}): Promise<Result[]> {
  const found: Result[] = [];
  for await (const row of readRecipients(bytes(text), { send: reminder, now, ...options })) {
    found.push(row);
  }
  return found;
}

const iso = (ms: number) => new Date(ms).toISOString();
const brief = (row: Result) =>
  'excluded' in row ? [row.line, row.excluded] : [row.line, row.phone, iso(row.at), row.timeZone];

describe('readRecipients', () => {
  it('reads each row into its number, input, send time and time zone', async () => {
    const found = await read(
      'phone,name,at\n+33 6 12 34 56 78,Ana,2027-12-06T09:00\n06 12 34 56 79,,2027-12-07T18:30\n',
      { defaultCountry: 'FR' },
    );
    expect(found).toEqual([
      {
        line: 2,
        phone: '33612345678',
        input: { name: 'Ana', at: '2027-12-06T09:00' },
        at: Date.parse('2027-12-05T09:00:00+01:00'),
        timeZone: 'Europe/Paris',
      },
      {
        line: 3,
        phone: '33612345679',
        input: { at: '2027-12-07T18:30' },
        at: Date.parse('2027-12-06T18:30:00+01:00'),
        timeZone: 'Europe/Paris',
      },
    ]);
  });

  it('refuses a national number without a default country, and landlines, masking the number', async () => {
    const found = await read(
      'phone,at\n06 12 34 56 78,2027-12-06\n+33 1 40 00 00 02,2027-12-06\n01 40 00 00 03,2027-12-06\nn/a,2027-12-06\n,2027-12-06\n',
    );
    expect(found).toEqual([
      {
        line: 2,
        excluded: 'bad_phone',
        message:
          "'061••••678' is not a valid phone number: write it with its country prefix (+33 6 12 34 56 78) or set a default country for national numbers",
      },
      {
        line: 3,
        excluded: 'bad_phone',
        message: "'331•••••002' is a landline number; the service only sends SMS to mobile numbers",
      },
      { line: 4, excluded: 'bad_phone', message: expect.stringContaining("'014••••003'") },
      { line: 5, excluded: 'bad_phone', message: expect.stringContaining("'n/a' is not a valid") },
      { line: 6, excluded: 'bad_phone', message: "no phone number in column 'phone'" },
    ]);
    // With the default country the national mobile number is read; the landline still is not.
    const withCountry = await read(
      'phone,at\n06 12 34 56 78,2027-12-06\n01 40 00 00 03,2027-12-06\n',
      {
        defaultCountry: 'FR',
      },
    );
    expect(withCountry.map(brief)).toEqual([
      [2, '33612345678', '2027-12-04T23:00:00.000Z', 'Europe/Paris'],
      [3, 'bad_phone'],
    ]);
  });

  it('excludes a number an earlier row named, however it was written, naming that row', async () => {
    const found = await read(
      'phone,at\n+33612345678,2027-12-06\n33612345679,2027-12-06\n06 12 34 56 78,2027-12-07\n0033 612 345 678,2027-12-08\n',
      { defaultCountry: 'FR' },
    );
    expect(found.map(brief)).toEqual([
      [2, '33612345678', '2027-12-04T23:00:00.000Z', 'Europe/Paris'],
      [3, '33612345679', '2027-12-04T23:00:00.000Z', 'Europe/Paris'],
      [4, 'duplicate'],
      [5, 'duplicate'],
    ]);
    expect(found[2]).toEqual({
      line: 4,
      excluded: 'duplicate',
      message: '336•••••678 is already on line 2',
      phone: '33612345678',
    });
  });

  it('gives bad_date and past_due rows their reason, and sends within sendIfWithin', async () => {
    const text =
      'phone,at\n' +
      '33612345670,2027-12-06T09:00\n' +
      '33612345671,06/12/2027\n' +
      '33612345672,\n' +
      '33612345673,2027-11-01T18:00\n' +
      '33612345674,2027-11-02T08:00\n';
    expect((await read(text)).map(brief)).toEqual([
      [2, '33612345670', '2027-12-05T08:00:00.000Z', 'Europe/Paris'],
      [3, 'bad_date'],
      [4, 'bad_date'],
      [5, 'past_due'],
      [6, 'past_due'],
    ]);
    const lenient = { ...reminder, past: { kind: 'sendIfWithin', ms: 6 * 3_600_000 } } as const;
    // Due 31 October 18:00 (16 h late): still past_due; due 1 November 08:00 (2 h late): now.
    expect((await read(text, { send: lenient })).slice(3).map(brief)).toEqual([
      [5, 'past_due'],
      [6, '33612345674', iso(now), 'Europe/Paris'],
    ]);
  });

  it('reads each recipient time zone from its column, the campaign one when empty', async () => {
    const found = await read(
      'phone,tz,at\n' +
        '33612345670,America/New_York,2027-12-06T09:00\n' +
        '33612345671,,2027-12-06T09:00\n' +
        '33612345672,asia/tokyo,2027-12-06T09:00\n' +
        '33612345673,Europe/Pariss,2027-12-06T09:00\n',
      { timeZoneColumn: 'tz', send: { ...reminder, window: '10:00-18:00' } },
    );
    expect(found.map(brief)).toEqual([
      [2, '33612345670', '2027-12-05T15:00:00.000Z', 'America/New_York'],
      [3, '33612345671', '2027-12-05T09:00:00.000Z', 'Europe/Paris'],
      [4, '33612345672', '2027-12-05T01:00:00.000Z', 'Asia/Tokyo'],
      [5, 'bad_input'],
    ]);
    expect(found[3]).toMatchObject({
      message:
        '"Europe/Pariss" in column \'tz\' is not a time zone: use an IANA name such as Europe/Paris or America/New_York',
    });
    // The time zone column is not part of the input.
    expect((found[0] as Recipient).input).toEqual({ at: '2027-12-06T09:00' });
  });

  it('keeps the day offset on the local hour across DST for zones from the column', async () => {
    // New York changes on 7 November 2027, Paris on 31 October: the day before 8 November 09:00.
    const found = await read(
      'phone,tz,at\n33612345670,America/New_York,2027-11-08T09:00\n33612345671,Europe/Paris,2027-11-08T09:00\n',
      { timeZoneColumn: 'tz' },
    );
    expect(found.map(brief)).toEqual([
      [2, '33612345670', '2027-11-07T14:00:00.000Z', 'America/New_York'],
      [3, '33612345671', '2027-11-07T08:00:00.000Z', 'Europe/Paris'],
    ]);
  });

  it('checks the input with the bot schema and keeps what it parsed', async () => {
    const input = z.object({
      name: z.string().transform((name) => name.toUpperCase()),
      at: z.string(),
      seats: z.coerce.number().int().optional(),
    });
    const found = await read(
      'phone,name,at,seats\n33612345670,Ana,2027-12-06,2\n33612345671,,2027-12-06,\n33612345672,Bob,2027-12-06,two\n',
      { input },
    );
    expect(found[0]).toMatchObject({ input: { name: 'ANA', at: '2027-12-06', seats: 2 } });
    // An excluded row whose number was good carries it, so that a later import can fix it.
    expect(found[1]).toEqual({
      line: 3,
      excluded: 'bad_input',
      message: expect.stringMatching(/^input\.name: /),
      phone: '33612345671',
    });
    expect(found[2]).toEqual({
      line: 4,
      excluded: 'bad_input',
      message: expect.stringMatching(/^input\.seats: /),
      phone: '33612345672',
    });
  });

  it('reports a malformed CSV line as bad_input at its line, and reads on', async () => {
    const text =
      'phone,name,at\n' +
      '33612345670,Ana,2027-12-06\n' +
      '33612345671,"Bob,2027-12-06\n' +
      '33612345672,Smith, Carl,2027-12-06\n' +
      '33612345673,"Doe, Dan",2027-12-06\n';
    const found = await read(text);
    expect(found.map(brief)).toEqual([
      [2, '33612345670', '2027-12-04T23:00:00.000Z', 'Europe/Paris'],
      [3, 'bad_input'],
      [4, 'bad_input'],
      [5, '33612345673', '2027-12-04T23:00:00.000Z', 'Europe/Paris'],
    ]);
  });

  it('gives exactly one result per data row, and no full number in any message', async () => {
    const rows = ['phone,name,at'];
    for (let i = 0; i < 300; i++) {
      const phone =
        i % 7 === 0 ? '+33 1 40 00 00 02' : `+33 6 12 34 5${String(i % 250).padStart(3, '0')}`;
      const date = i % 11 === 0 ? 'soon' : i % 13 === 0 ? '2027-10-01' : '2027-12-06';
      rows.push(i % 17 === 0 ? `${phone},"open,${date}` : `${phone},Name ${i},${date}`);
    }
    const found = await read(`${rows.join('\r\n')}\r\n`);
    expect(found.map((row) => row.line)).toEqual(rows.slice(1).map((_, i) => i + 2));
    const reasons = new Set(found.map((row) => ('excluded' in row ? row.excluded : 'ok')));
    expect([...reasons].sort()).toEqual([
      'bad_date',
      'bad_input',
      'bad_phone',
      'duplicate',
      'ok',
      'past_due',
    ]);
    for (const row of found) {
      if ('excluded' in row) expect(row.message).not.toMatch(/\d{7}|(\d[ .-]?){9}/);
    }
  });

  it('reads JSON lines, told by the file name, with a number as a number', async () => {
    const text =
      '{"phone": "+33612345670", "name": "Ana", "at": "2027-12-06T09:00", "vip": true}\n' +
      '\n' +
      '{"phone": 33612345671, "at": "2027-12-06T09:00"}\n' +
      '{"phone": "+33612345672", "at": 20271206}\n' +
      '{"phone": "+33612345673", "at": "2027-12-06T09:00"\n' +
      '["+33612345674"]\n';
    const found = await read(text, { fileName: 'Recipients.JSONL' });
    expect(found.map(brief)).toEqual([
      [1, '33612345670', '2027-12-05T08:00:00.000Z', 'Europe/Paris'],
      [3, '33612345671', '2027-12-05T08:00:00.000Z', 'Europe/Paris'],
      [4, 'bad_date'],
      [5, 'bad_input'],
      [6, 'bad_input'],
    ]);
    expect(found[0]).toMatchObject({ input: { name: 'Ana', at: '2027-12-06T09:00', vip: true } });
    expect((found[3] as ExcludedRow).message).toMatch(/^the line is not JSON: /);
    expect((found[3] as ExcludedRow).message).not.toContain('33612345673');
  });

  it('refuses, before any row, a file it cannot read right', async () => {
    const refused = async (text: string, options: Partial<ReadRecipientsOptions>) => {
      try {
        await read(text, options);
      } catch (error) {
        return error as Error;
      }
      throw new Error('not refused');
    };
    const noPhone = await refused('mobile,at\n33612345670,2027-12-06\n', {});
    expect(noPhone).toBeInstanceOf(ValidationError);
    expect(noPhone.message).toBe(
      "the header (line 1) has no column 'phone'; its columns are 'mobile', 'at'",
    );
    expect((await refused('phone,at\n', { timeZoneColumn: 'tz' })).message).toContain(
      "no column 'tz'",
    );
    expect(await refused('phone,at\n', { send: { ...reminder, offset: '1d' } })).toBeInstanceOf(
      ValidationError,
    );
    expect(await refused('phone,at\n', { fileName: 'list.xlsx' })).toBeInstanceOf(ConfigError);
  });

  it('keeps a column named __proto__ as an input field, not as the prototype', async () => {
    const [row] = await read('phone,__proto__,at\n33612345670,x,2027-12-06\n');
    const input = (row as Recipient).input as Record<string, unknown>;
    expect(Object.getPrototypeOf(input)).toBe(Object.prototype);
    expect(Object.keys(input)).toEqual(['__proto__', 'at']);
    expect(Object.getOwnPropertyDescriptor(input, '__proto__')?.value).toBe('x');
  });

  it('reads the phone from the column named, with a fixed time for all', async () => {
    const found = await read('mobile,name\n33612345670,Ana\n', {
      phoneColumn: 'mobile',
      send: { at: '2027-12-06T09:00', timeZone: 'Europe/Paris', past: { kind: 'skip' } },
    });
    expect(found).toEqual([
      {
        line: 2,
        phone: '33612345670',
        input: { name: 'Ana' },
        at: Date.parse('2027-12-06T09:00:00+01:00'),
        timeZone: 'Europe/Paris',
      },
    ]);
  });
});
