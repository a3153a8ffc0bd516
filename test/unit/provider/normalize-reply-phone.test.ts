import { describe, expect, it } from 'vitest';
import { normalizePhone } from '../../../src/provider/normalize-phone.ts';

describe("normalizePhone with accept: 'reply' (a number that texted us)", () => {
  it('reads the written forms of one mobile as one number', () => {
    for (const form of ['0033612345678', '+33 6 12 34 56 78', '0612345678', '33612345678']) {
      expect(normalizePhone(form, { defaultCountry: 'FR', accept: 'reply' })).toBe('33612345678');
    }
  });

  it('takes a landline and a number the metadata does not know, which sends refuse', () => {
    expect(normalizePhone('+33 1 23 45 67 89', { accept: 'reply' })).toBe('33123456789');
    expect(() => normalizePhone('+33 1 23 45 67 89')).toThrowError(
      expect.objectContaining({ code: 'NOT_A_MOBILE_NUMBER' }),
    );
    // +1 555 01… is no valid North American number, but its length fits the country.
    expect(normalizePhone('+1 555 010 0100', { accept: 'reply' })).toBe('15550100100');
    expect(() => normalizePhone('+1 555 010 0100')).toThrowError(
      expect.objectContaining({ code: 'INVALID_PHONE_NUMBER' }),
    );
  });

  it('refuses what is no phone number, saying when a default country is missing', () => {
    expect(() => normalizePhone('+33 6 12', { accept: 'reply' })).toThrowError(
      expect.objectContaining({ code: 'INVALID_PHONE_NUMBER', field: 'from' }),
    );
    expect(() => normalizePhone('0612345678', { accept: 'reply' })).toThrowError(
      /needs a default country/,
    );
  });
});

describe('one reading of a number for replies and sends', () => {
  const send = (input: string, defaultCountry: 'US' | 'CA' | 'FR' | 'GB') =>
    normalizePhone(input, { defaultCountry });
  const reply = (input: string, defaultCountry: 'US' | 'CA' | 'FR' | 'GB') =>
    normalizePhone(input, { defaultCountry, accept: 'reply' });

  it('reads a reply from 2015550123 (default US) as New Jersey, where its sends go, not as an Egyptian landline', () => {
    expect(reply('2015550123', 'US')).toBe('12015550123');
    expect(reply('(201) 555-0123', 'US')).toBe('12015550123');
    expect(send('2015550123', 'US')).toBe('12015550123');
  });

  it('gives the same digits in both modes for every US area code the send takes, however written', () => {
    const differ: string[] = [];
    let taken = 0;
    for (let area = 200; area <= 999; area++) {
      for (const form of [`${area}5550123`, `(${area}) 555-0123`, `${area}.555.0123`]) {
        let sent: string;
        try {
          sent = send(form, 'US');
        } catch {
          continue;
        }
        taken++;
        const replied = reply(form, 'US');
        if (replied !== sent) differ.push(`${form}: send ${sent}, reply ${replied}`);
      }
    }
    // Not vacuous: most area codes are in service.
    expect(taken).toBeGreaterThan(3 * 400);
    expect(differ).toEqual([]);
  });

  it('does the same for Canadian area codes with CA as default', () => {
    const areas = [204, 250, 306, 403, 416, 418, 438, 450, 514, 519, 604, 613, 647, 705, 778];
    for (const area of areas) {
      for (const form of [`${area}5550123`, `(${area}) 555-0123`]) {
        expect(send(form, 'CA'), form).toBe(`1${area}5550123`);
        expect(reply(form, 'CA'), form).toBe(`1${area}5550123`);
      }
    }
  });

  it('keeps the international reading of international input, whatever the default country', () => {
    const cases: [input: string, expected: string][] = [
      ['447911123456', '447911123456'],
      ['+44 7911 123456', '447911123456'],
      ['0033612345678', '33612345678'],
      ['33612345678', '33612345678'],
    ];
    for (const [input, expected] of cases) {
      for (const country of ['US', 'FR'] as const) {
        expect(send(input, country), `${input} (${country})`).toBe(expected);
        expect(reply(input, country), `${input} (${country})`).toBe(expected);
      }
    }
    expect(send('0612345678', 'FR')).toBe('33612345678');
    expect(reply('0612345678', 'FR')).toBe('33612345678');
  });

  it('still takes a landline reply, in the reading the send would refuse it in', () => {
    expect(reply('33142928100', 'US')).toBe('33142928100');
    expect(reply('01 42 92 81 00', 'FR')).toBe('33142928100');
    expect(() => send('01 42 92 81 00', 'FR')).toThrowError(
      expect.objectContaining({ code: 'NOT_A_MOBILE_NUMBER' }),
    );
  });
});
