import type { CountryCode } from 'libphonenumber-js/max';
import { errorCodes, ValidationError } from '../errors.ts';
import { readPhone } from './read-phone.ts';

export interface NormalizePhoneOptions {
  /** Country used for numbers written in national form (`0612345678` with `FR`). */
  defaultCountry?: CountryCode;
  /**
   * Accept numbers whose type the metadata cannot tell (`FIXED_LINE_OR_MOBILE`, as in the US).
   * Default true: refusing them would refuse every North American number.
   */
  allowFixedLineOrMobile?: boolean;
  /**
   * `'mobile'` (default): only a mobile number, as the service sends to. `'reply'`: the number a
   * reply came from, which the service just delivered: any valid number, or one whose length
   * fits its country although the metadata does not know its range yet, so that a person's
   * reply (a STOP above all) is never lost to an outdated table.
   */
  accept?: 'mobile' | 'reply';
  /**
   * Keep the result for the next call with the same number (default true). A file of distinct
   * numbers passes false: each entry would outlive thousands of rows for nothing.
   */
  remember?: boolean;
}

/**
 * Turns a phone number as people write it into the service's form: digits with the country
 * prefix, no `+`, no separators (spec §2.1). Refuses invalid numbers and landlines before any
 * request is sent, using libphonenumber's full (`/max`) metadata, the only one that tells a
 * mobile number from a landline. Which reading of bare digits wins (`2015550123` with US: New
 * Jersey, not Egypt) is `readPhone`'s rule, the same in both modes, so a reply's `from` and a
 * send's `to` always agree on a number.
 *
 * @example
 * normalizePhone('+33 6 12 34 56 78'); // '33612345678'
 * normalizePhone('06 12 34 56 78', { defaultCountry: 'FR' }); // '33612345678'
 * normalizePhone('0033612345678'); // '33612345678'
 * normalizePhone('33123456789'); // throws ValidationError NOT_A_MOBILE_NUMBER (a Paris landline)
 */
export function normalizePhone(input: string, options: NormalizePhoneOptions = {}): string {
  if (options.remember === false) return parse(input, options);
  const key = `${options.defaultCountry ?? ''}|${options.allowFixedLineOrMobile === false ? 0 : 1}|${options.accept ?? ''}|${input}`;
  const known = normalized.get(key);
  if (known !== undefined) return known;
  const digits = parse(input, options);
  // A conversation sends to the same few numbers again and again; parsing one costs tens of µs.
  if (normalized.size >= normalizedCap) normalized.delete(normalized.keys().next().value!);
  normalized.set(key, digits);
  return digits;
}

/** Numbers already normalized (options and input → digits), oldest first; invalid ones are not kept. */
const normalized = new Map<string, string>();
const normalizedCap = 10_000;

/** The winning reading (`readPhone`, the same for both modes), then what the mode refuses. */
function parse(input: string, options: NormalizePhoneOptions): string {
  const number = readPhone(input, options.defaultCountry);
  if (options.accept === 'reply') {
    // Any valid or possible number: the person did text us (see `accept`).
    if (number) return number.number.slice(1);
    throw new ValidationError(
      errorCodes.INVALID_PHONE_NUMBER,
      `'${input}' is not a phone number` +
        (!options.defaultCountry && /^\s*0(?!0)/.test(input)
          ? ' (a national number needs a default country)'
          : ''),
      'from',
    );
  }
  if (!number?.isValid()) {
    throw new ValidationError(
      errorCodes.INVALID_PHONE_NUMBER,
      invalidMessage(input, number, options),
      'to',
    );
  }
  const type = number.getType();
  const isMobile =
    type === 'MOBILE' ||
    (type === 'FIXED_LINE_OR_MOBILE' && options.allowFixedLineOrMobile !== false);
  if (!isMobile) {
    throw new ValidationError(
      errorCodes.NOT_A_MOBILE_NUMBER,
      `'${input}' is a ${describeType(type)} number; the service only sends SMS to mobile numbers`,
      'to',
    );
  }
  return number.number.slice(1);
}

/** Why `input` is no valid number, and what to do: a number written with its prefix is told so. */
function invalidMessage(
  input: string,
  number: ReturnType<typeof readPhone>,
  options: NormalizePhoneOptions,
): string {
  if (/^\s*(?:\+|00)/.test(input)) {
    const code = number?.countryCallingCode;
    return code
      ? `'${input}' is not a valid phone number for +${code}${number?.country ? ` (${number.country})` : ''}: check its digits`
      : `'${input}' is not a valid phone number: check its country prefix and its digits`;
  }
  return (
    `'${input}' is not a valid phone number: write it with its country prefix (+33 6 12 34 56 78)` +
    (options.defaultCountry ? '' : ' or set a default country for national numbers')
  );
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
