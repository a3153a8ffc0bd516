import {
  type CountryCode,
  type PhoneNumber,
  parsePhoneNumberFromString,
} from 'libphonenumber-js/max';

/** Spaces (including the no-break spaces of French typography), dots, dashes of any width, brackets, slashes. */
const separators = /[\s.\-\u2010-\u2015()/]/g;
/** A `tel:` URI prefix (RFC 3966), as copied from a web page's link. */
const telPrefix = /^tel:/i;

/**
 * Which reading of a phone number as written wins: the one rule behind every path that turns
 * a number into digits (sends, the admin API, the dev phone, a reply's `from`), so that one
 * number always keys one conversation and one suppression entry whichever path read it.
 * `normalizePhone`'s modes differ only in what they refuse afterwards.
 *
 * Bare digits read two ways: international (the service's own form, `33612345678`) and
 * national in `defaultCountry`. In order, the first that holds wins:
 * 1. a valid reading that can take an SMS (`MOBILE`, or `FIXED_LINE_OR_MOBILE` as all of North
 *    America is), international before national;
 * 2. any valid reading, international first;
 * 3. a possible one (its length fits its country), international first; only replies take it.
 *
 * "International when it is valid that way" must mean valid *as a number that takes SMS* that
 * way. `2015550123` with US is New Jersey, yet `+20 1555 0123` is a valid Egyptian landline:
 * taking any valid international reading first read a New Jersey reply as Egyptian while its
 * sends went to New Jersey, so its STOP suppressed a number we never text (43 of the 800 US
 * area codes). Whoever texts us, or whom we text, has a number that takes SMS; a landline
 * reading is only a fallback for a reply when nothing better exists.
 *
 * @returns the winning reading, or undefined when none is even possible.
 */
export function readPhone(
  input: string,
  defaultCountry: CountryCode | undefined,
): PhoneNumber | undefined {
  const fallbacks: PhoneNumber[] = [];
  for (const read of readings(input, defaultCountry)) {
    const number = read();
    if (!number) continue;
    if (number.isValid() && takesSms(number)) return number;
    fallbacks.push(number);
  }
  return fallbacks.find((n) => n.isValid()) ?? fallbacks.find((n) => n.isPossible());
}

function takesSms(number: PhoneNumber): boolean {
  const type = number.getType();
  return type === 'MOBILE' || type === 'FIXED_LINE_OR_MOBILE';
}

/**
 * The ways to read `input`, in order of preference: international when it starts with `+` or
 * `00`, national when it starts with a trunk `0`, and both for bare digits, international first
 * since that is the service's own form (`33612345678`). Lazy: the service's form, a mobile,
 * costs one parse.
 */
function readings(
  input: string,
  defaultCountry: CountryCode | undefined,
): Array<() => PhoneNumber | undefined> {
  const compact = input.trim().replace(telPrefix, '').replace(separators, '');
  const international = (digits: string) => () => parsePhoneNumberFromString(`+${digits}`);
  const national = () =>
    defaultCountry ? parsePhoneNumberFromString(compact, defaultCountry) : undefined;
  if (compact.startsWith('+')) return [() => parsePhoneNumberFromString(compact)];
  if (compact.startsWith('00')) return [international(compact.slice(2))];
  if (compact.startsWith('0')) return [national];
  return [international(compact), national];
}
