import { errorCodes, ValidationError } from '../errors.ts';

/**
 * Characters the service keeps in `from`. The spec says unauthorized characters are removed
 * (§7) without listing them; ASCII letters, digits and spaces, as alphanumeric sender ids allow,
 * is our documented assumption, and the emulator applies the same rule.
 */
const unauthorized = /[^A-Za-z0-9 ]/g;

/** The minimum length of a non-empty `from` after sanitization (spec §7, §8). */
export const minSenderLength = 2;

/** Removes the characters the service would remove from `from`, and trims. */
export function sanitizeSender(from: string): string {
  return from.replace(unauthorized, '').trim();
}

/**
 * Applies the service's `from` rule locally: unauthorized characters are removed, and a
 * non-empty result shorter than 2 characters is refused. An empty `from` selects the short
 * code, the only sender recipients can reply to.
 *
 * @example
 * checkSender(''); // '' (the short code)
 * checkSender('Dr. Martin!'); // 'Dr Martin'
 * checkSender('é!'); // throws ValidationError INVALID_SENDER
 */
export function checkSender(from: string): string {
  const clean = sanitizeSender(from);
  if (from !== '' && clean.length < minSenderLength) {
    throw new ValidationError(
      errorCodes.INVALID_SENDER,
      `from '${from}' becomes '${clean}' once unauthorized characters are removed; ` +
        `a sender needs at least ${minSenderLength} letters, digits or spaces, or leave it empty to use the short code`,
      'from',
    );
  }
  return clean;
}
