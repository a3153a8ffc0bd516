import {
  type CountryCode,
  type NumberType,
  type PhoneNumber,
  parsePhoneNumberFromString,
} from 'libphonenumber-js/max';
import { errorCodes, ValidationError } from '../errors.ts';

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
}

/** Spaces (including the no-break spaces of French typography), dots, dashes of any width, brackets, slashes. */
const separators = /[\s.\-\u2010-\u2015()/]/g;
/** A `tel:` URI prefix (RFC 3966), as copied from a web page's link. */
const telPrefix = /^tel:/i;

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
  const key = `${options.defaultCountry ?? ''}|${options.allowFixedLineOrMobile === false ? 0 : 1}|${options.accept ?? ''}|${input}`;
  const known = normalized.get(key);
  if (known !== undefined) return known;
  const digits =
    options.accept === 'reply' ? parseReply(input, options) : parseMobile(input, options);
  // A conversation sends to the same few numbers again and again; parsing one costs tens of µs.
  if (normalized.size >= normalizedCap) normalized.delete(normalized.keys().next().value!);
  normalized.set(key, digits);
  return digits;
}

/** Numbers already normalized (options and input → digits), oldest first; invalid ones are not kept. */
const normalized = new Map<string, string>();
const normalizedCap = 10_000;

function parseMobile(input: string, options: NormalizePhoneOptions): string {
  const isMobile = (type: NumberType) =>
    type === 'MOBILE' ||
    (type === 'FIXED_LINE_OR_MOBILE' && options.allowFixedLineOrMobile !== false);
  const valid = readings(input, options.defaultCountry).filter((number) => number.isValid());
  // Bare digits can read two ways: `2015550123` with US is a New Jersey number, yet `+20…` is
  // a valid Egyptian landline. An SMS needs a mobile, so the mobile reading wins.
  const number = valid.find((n) => isMobile(n.getType())) ?? valid[0];
  if (!number) {
    throw new ValidationError(
      errorCodes.INVALID_PHONE_NUMBER,
      `'${input}' is not a valid phone number: write it with its country prefix (+33 6 12 34 56 78)` +
        (options.defaultCountry ? '' : ' or set a default country for national numbers'),
      'to',
    );
  }
  const type = number.getType();
  if (!isMobile(type)) {
    throw new ValidationError(
      errorCodes.NOT_A_MOBILE_NUMBER,
      `'${input}' is a ${describeType(type)} number; the service only sends SMS to mobile numbers`,
      'to',
    );
  }
  return number.number.slice(1);
}

function parseReply(input: string, options: NormalizePhoneOptions): string {
  // The service writes `from` in its own form, international digits: that reading alone first.
  const compact = input.trim().replace(telPrefix, '').replace(separators, '');
  if (/^[1-9]\d{5,14}$/.test(compact)) {
    const number = parsePhoneNumberFromString(`+${compact}`);
    if (number?.isValid()) return number.number.slice(1);
  }
  const all = readings(input, options.defaultCountry);
  const number = all.find((n) => n.isValid()) ?? all.find((n) => n.isPossible());
  if (!number) {
    throw new ValidationError(
      errorCodes.INVALID_PHONE_NUMBER,
      `'${input}' is not a phone number` +
        (!options.defaultCountry && /^\s*0(?!0)/.test(input)
          ? ' (a national number needs a default country)'
          : ''),
      'from',
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

/**
 * The ways to read `input`: international when it starts with `+` or `00`, national when it
 * starts with a trunk `0`, and both for bare digits, international first since that is the
 * service's own form (`33612345678`).
 */
function readings(input: string, defaultCountry: CountryCode | undefined): PhoneNumber[] {
  const compact = input.trim().replace(telPrefix, '').replace(separators, '');
  const international = (digits: string) => parsePhoneNumberFromString(`+${digits}`);
  const national = () =>
    defaultCountry ? parsePhoneNumberFromString(compact, defaultCountry) : undefined;
  const candidates = compact.startsWith('+')
    ? [parsePhoneNumberFromString(compact)]
    : compact.startsWith('00')
      ? [international(compact.slice(2))]
      : compact.startsWith('0')
        ? [national()]
        : [international(compact), national()];
  return candidates.filter((number) => number !== undefined);
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
