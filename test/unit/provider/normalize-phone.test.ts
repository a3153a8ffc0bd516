import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { describe, expect, it } from 'vitest';
import { errorCodes, ValidationError } from '../../../src/errors.ts';
import { isServiceMobileNumber, normalizePhone } from '../../../src/provider/normalize-phone.ts';

type Country = 'FR' | 'BE' | 'CH' | 'GB' | 'US' | 'DE';

/**
 * Numbers as people write them, one row each: the input, the default country, the number's type
 * according to libphonenumber's full metadata (asserted below, so the table cannot lie), and the
 * service form expected.
 */
const accepted: [input: string, country: Country | undefined, type: string, expected: string][] = [
  ['06 12 34 56 78', 'FR', 'MOBILE', '33612345678'],
  ['+33 7 81 23 45 67', undefined, 'MOBILE', '33781234567'],
  ['+33 (0)6 12 34 56 78', undefined, 'MOBILE', '33612345678'],
  ['0033 6 12 34 56 78', undefined, 'MOBILE', '33612345678'],
  ['+33\u00a06\u00a012\u00a034\u00a056\u00a078', undefined, 'MOBILE', '33612345678'],
  ['06–12–34–56–78', 'FR', 'MOBILE', '33612345678'],
  ['tel:+33612345678', undefined, 'MOBILE', '33612345678'],
  ['33612345678', undefined, 'MOBILE', '33612345678'],
  ['0470 12 34 56', 'BE', 'MOBILE', '32470123456'],
  ['+32 493 12 34 56', undefined, 'MOBILE', '32493123456'],
  ['079 123 45 67', 'CH', 'MOBILE', '41791234567'],
  ['+41 76 555 12 34', undefined, 'MOBILE', '41765551234'],
  ['07911 123456', 'GB', 'MOBILE', '447911123456'],
  ['+44 (0)7400 123456', undefined, 'MOBILE', '447400123456'],
  ['(415) 555-2671', 'US', 'FIXED_LINE_OR_MOBILE', '14155552671'],
  ['+1 646-555-0100', undefined, 'FIXED_LINE_OR_MOBILE', '16465550100'],
  ['011 33 6 12 34 56 78', 'US', 'MOBILE', '33612345678'],
  ['0151 23456789', 'DE', 'MOBILE', '4915123456789'],
  ['+49 170 1234567', undefined, 'MOBILE', '491701234567'],
  ['0049 (0)151 / 234 567 89', undefined, 'MOBILE', '4915123456789'],
];

const landlines: [input: string, country: Country | undefined, e164: string, type: string][] = [
  ['01 42 92 81 00', 'FR', '+33142928100', 'FIXED_LINE'],
  ['+32 2 555 12 12', undefined, '+3225551212', 'FIXED_LINE'],
  ['044 668 18 00', 'CH', '+41446681800', 'FIXED_LINE'],
  ['020 7946 0018', 'GB', '+442079460018', 'FIXED_LINE'],
  ['030 901820', 'DE', '+4930901820', 'FIXED_LINE'],
  ['+49 (0)89 123456', undefined, '+4989123456', 'FIXED_LINE'],
];

/** The type libphonenumber's full metadata gives the number, so that the tables cannot lie. */
function typeOf(e164: string): string | undefined {
  return parsePhoneNumberFromString(e164)?.getType();
}

function refusal(run: () => unknown): ValidationError {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError, nothing was thrown');
}

describe('normalizePhone', () => {
  it.each(accepted)(
    'turns %j (default %s, %s) into the service form',
    (input, country, type, expected) => {
      expect(typeOf(`+${expected}`)).toBe(type);
      expect(normalizePhone(input, { defaultCountry: country })).toBe(expected);
    },
  );

  it.each(landlines)(
    'refuses the landline %j (default %s) before any request',
    (input, country, e164, type) => {
      expect(typeOf(e164)).toBe(type);
      const error = refusal(() => normalizePhone(input, { defaultCountry: country }));
      expect(error.code).toBe(errorCodes.NOT_A_MOBILE_NUMBER);
      expect(error.field).toBe('to');
      expect(error.message).toContain('landline');
    },
  );

  it('reads bare national digits as the default country when the international reading is no mobile', () => {
    // +20 1555 0123 would be a valid Egyptian landline; with US as default it is New Jersey.
    expect(typeOf('+2015550123')).toBe('FIXED_LINE');
    expect(normalizePhone('(201) 555-0123', { defaultCountry: 'US' })).toBe('12015550123');
    // +49 4915123456789 would be a valid German landline; the service form wins.
    expect(normalizePhone('4915123456789', { defaultCountry: 'DE' })).toBe('4915123456789');
  });

  it('refuses a toll-free number and names its type', () => {
    const error = refusal(() => normalizePhone('0 800 12 34 56', { defaultCountry: 'FR' }));
    expect(error.code).toBe(errorCodes.NOT_A_MOBILE_NUMBER);
    expect(error.message).toContain('toll free');
  });

  it("refuses the UK's drama range 07700 900xxx, which is valid-looking but never allocated", () => {
    const error = refusal(() => normalizePhone('07700 900123', { defaultCountry: 'GB' }));
    expect(error.code).toBe(errorCodes.INVALID_PHONE_NUMBER);
  });

  it('tells a number written with its prefix that its digits are wrong, not to add a prefix', () => {
    expect(() => normalizePhone('+33 7 11 22 33 44', { defaultCountry: 'FR' })).toThrow(
      "'+33 7 11 22 33 44' is not a valid phone number for +33 (FR): check its digits",
    );
    expect(() => normalizePhone('0033 7 11 22 33 44')).toThrow(/for \+33 \(FR\): check its digits/);
    expect(() => normalizePhone('+999 123')).toThrow(/check its country prefix and its digits/);
    expect(() => normalizePhone('07 11 22 33 44', { defaultCountry: 'FR' })).toThrow(
      /write it with its country prefix/,
    );
  });

  it('asks for a default country when a national number comes without one', () => {
    const error = refusal(() => normalizePhone('06 12 34 56 78'));
    expect(error.code).toBe(errorCodes.INVALID_PHONE_NUMBER);
    expect(error.message).toContain('default country');
  });

  it('refuses text that is not a phone number at all', () => {
    expect(refusal(() => normalizePhone('call me')).code).toBe(errorCodes.INVALID_PHONE_NUMBER);
    expect(refusal(() => normalizePhone('')).code).toBe(errorCodes.INVALID_PHONE_NUMBER);
  });

  it('refuses North American numbers of unknown type when told to be strict', () => {
    const error = refusal(() =>
      normalizePhone('+1 415 555 2671', { allowFixedLineOrMobile: false }),
    );
    expect(error.code).toBe(errorCodes.NOT_A_MOBILE_NUMBER);
  });

  it('answers a number it has seen with the options it was seen with, not others', () => {
    // Accepted once leniently, then asked strictly: the first answer must not be reused.
    expect(normalizePhone('+1 415 555 2672')).toBe('14155552672');
    expect(
      refusal(() => normalizePhone('+1 415 555 2672', { allowFixedLineOrMobile: false })).code,
    ).toBe(errorCodes.NOT_A_MOBILE_NUMBER);
    // Accepted with a default country, then asked without one.
    expect(normalizePhone('06 12 34 56 79', { defaultCountry: 'FR' })).toBe('33612345679');
    expect(refusal(() => normalizePhone('06 12 34 56 79')).code).toBe(
      errorCodes.INVALID_PHONE_NUMBER,
    );
    // The same bare digits under two default countries: New Jersey, or an Egyptian landline.
    expect(normalizePhone('(201) 555-0124', { defaultCountry: 'US' })).toBe('12015550124');
    expect(refusal(() => normalizePhone('(201) 555-0124', { defaultCountry: 'FR' })).code).toBe(
      errorCodes.NOT_A_MOBILE_NUMBER,
    );
  });

  it('keeps answering right past the numbers it remembers', () => {
    const phones = Array.from({ length: 10_050 }, (_, i) => `+33 6 ${String(i).padStart(8, '0')}`);
    for (const phone of phones) normalizePhone(phone);
    for (const phone of [phones[0]!, phones[10_049]!]) {
      expect(normalizePhone(phone)).toBe(phone.replace(/[+ ]/g, ''));
    }
    expect(refusal(() => normalizePhone('+33 1 00 00 00 00')).code).toBe(
      errorCodes.NOT_A_MOBILE_NUMBER,
    );
  });
});

describe('isServiceMobileNumber', () => {
  it('accepts only digits that form a mobile number', () => {
    expect(isServiceMobileNumber('33612345678')).toBe(true);
    expect(isServiceMobileNumber('+33612345678')).toBe(false);
    expect(isServiceMobileNumber('33142928100')).toBe(false);
    expect(isServiceMobileNumber('0612345678')).toBe(false);
  });
});
