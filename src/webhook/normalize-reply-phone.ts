import { quotedPhone } from '../observability/mask-phone.ts';
import { type NormalizePhoneOptions, normalizePhone } from '../provider/normalize-phone.ts';

/**
 * A reply's `from` in the service's form (`0033 6…`, `+33 6 …` and `06…` with FR all read
 * `336…`), so one number always keys one conversation; or why it cannot be read, with the
 * number masked (the reason goes to a dead letter and the log).
 *
 * Any valid number is taken, not only a mobile: the person did text us, and what they said,
 * a STOP above all, must reach the compliance step whatever the metadata thinks of the range.
 */
export function normalizeReplyPhone(
  from: string,
  defaultCountry: string | undefined,
): { phone: string } | { reason: string } {
  try {
    const options: NormalizePhoneOptions = {
      defaultCountry: defaultCountry as NormalizePhoneOptions['defaultCountry'],
      accept: 'reply',
    };
    return { phone: normalizePhone(from, options) };
  } catch {
    const national = /^\s*0(?!0)/.test(from) && !defaultCountry;
    return {
      reason:
        `from ${quotedPhone(from)} is not a phone number` +
        (national ? ": a national number (0…) needs the location's defaultCountry" : ''),
    };
  }
}
