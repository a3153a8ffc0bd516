import { maskPhonesInText } from '../observability/mask-phones-in-text.ts';
import type { DeadLetter } from '../store/records.ts';

/** How much of a refused body a dead letter keeps. */
const deadLetterChars = 4096;

/**
 * The dead letter kept for a notification that could not be used: its reason and the start of
 * its body, with every phone number masked (`336•••••678`), as the logs have them. Cut on a
 * code point, never inside a surrogate pair. The store keeps it for the retention.
 */
export function deadLetterOf(
  location: string,
  raw: string,
  reason: string,
  at: number,
): DeadLetter {
  let body = raw.slice(0, deadLetterChars);
  const last = body.charCodeAt(body.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) body = body.slice(0, -1);
  return { v: 1, at, location, reason: maskPhonesInText(reason), body: maskPhonesInText(body) };
}
