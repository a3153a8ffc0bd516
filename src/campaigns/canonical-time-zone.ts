/** Names looked up so far (the canonical name, or null for none); a file repeats a few zones. */
const known = new Map<string, string | null>();
const maxKnown = 10_000;

/**
 * The runtime's canonical name of an IANA time zone as written in a file (`europe/paris` →
 * `Europe/Paris`), or undefined when it names no zone the runtime knows.
 *
 * @example
 * canonicalTimeZone('america/new_york'); // 'America/New_York'
 * canonicalTimeZone('Europe/Pariss'); // undefined
 */
export function canonicalTimeZone(name: string): string | undefined {
  let found = known.get(name);
  if (found === undefined) {
    try {
      found = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
    } catch (error) {
      // Intl refuses a zone it does not know with a RangeError; anything else is a real fault.
      if (!(error instanceof RangeError)) throw error;
      found = null;
    }
    if (known.size >= maxKnown) known.clear();
    known.set(name, found);
  }
  return found ?? undefined;
}
