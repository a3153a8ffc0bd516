import { type CountryCode, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { errorCodes, ValidationError } from '../errors.ts';

export interface NormalizePhoneOptions {
  /** Country used for numbers written in national form (`0612345678` with `FR`). */
  defaultCountry?: CountryCode;
  /**
   * Accept numbers whose type the metadata cannot tell (`FIXED_LINE_OR_MOBILE`, as in the US).
   * Default true: refusing them would refuse every North American number.
   */
  allowFixedLineOrMobile?: boolean;
}

const separators = /[\s.\-()/]/g;

/**
 * Turns a phone number as people write it into the service's form: digits with the country
 * prefix, no `+`, no separators (spec §2.1). Refuses invalid numbers and landlines before any
 * request is sent, using libphonenumber's full (`/max`) metadata, the only one that tells a
 * mobile number from a landline.
 *
 * @example
 * normalizePhone('+33 6 12 34 56 78'); // '33612345678'
 * normalizePhone('06 12 34 56 78', { defaultCountry: 'FR' }); // '33612345678'
 * normalizePhone('0033612345678'); // '33612345678'
 * normalizePhone('33123456789'); // throws ValidationError NOT_A_MOBILE_NUMBER (a Paris landline)
 */
export function normalizePhone(input: string, options: NormalizePhoneOptions = {}): string {
  const number = parse(input, options.defaultCountry);
  if (!number?.isValid()) {
    throw new ValidationError(
      errorCodes.INVALID_PHONE_NUMBER,
      `'${input}' is not a valid phone number: write it with its country prefix (+33 6 12 34 56 78)` +
        (options.defaultCountry ? '' : ' or set a default country for national numbers'),
      'to',
    );
  }
  const type = number.getType();
  const mobile =
    type === 'MOBILE' ||
    (type === 'FIXED_LINE_OR_MOBILE' && options.allowFixedLineOrMobile !== false);
  if (!mobile) {
    throw new ValidationError(
      errorCodes.NOT_A_MOBILE_NUMBER,
      `'${input}' is a ${describeType(type)} number; the service only sends SMS to mobile numbers`,
      'to',
    );
  }
  return number.number.slice(1);
}

/** True when `digits` (the service's form) is a valid mobile number. Never throws. */
export function isServiceMobileNumber(digits: string): boolean {
  if (!/^\d{6,15}$/.test(digits)) return false;
  try {
    normalizePhone(`+${digits}`);
    return true;
  } catch {
    return false;
  }
}

function parse(input: string, defaultCountry: CountryCode | undefined) {
  const compact = input.trim().replace(separators, '');
  if (compact.startsWith('+')) return parsePhoneNumberFromString(compact);
  if (compact.startsWith('00')) return parsePhoneNumberFromString(`+${compact.slice(2)}`);
  if (compact.startsWith('0')) {
    return defaultCountry ? parsePhoneNumberFromString(compact, defaultCountry) : undefined;
  }
  const international = parsePhoneNumberFromString(`+${compact}`);
  if (international?.isValid() || !defaultCountry) return international;
  return parsePhoneNumberFromString(compact, defaultCountry);
}

function describeType(type: string | undefined): string {
  switch (type) {
    case 'FIXED_LINE':
      return 'landline';
    case undefined:
      return 'non-mobile';
    default:
      return `${type.toLowerCase().replaceAll('_', ' ')} (not mobile)`;
  }
}
