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
