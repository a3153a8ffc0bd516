const quote = 0x22;
const comma = 0x2c;

/**
 * Whether a quoted CSV value is still open at the end of `line`, starting inside one when
 * `quoted`: then the row goes on to the next line. It reads quotes as csv-parse does with
 * `relax_quotes`: a quote opens a value only as its first character, `""` inside is a quote,
 * and a quote elsewhere is text (`5'11"`, `"a" b`). Finding where a row ends before parsing it
 * is what lets a quote left open on one line cost that line alone, not the rest of the file.
 *
 * @example
 * endsInQuotes('33612345678,"Ana', false); // true
 * endsInQuotes('Smith",2027-12-06', true); // false
 */
export function endsInQuotes(line: string, quoted: boolean): boolean {
  if (!quoted && line.indexOf('"') === -1) return false;
  let inQuotes = quoted;
  // Whether the value being read has a character yet: a quote opens only an empty one.
  let started = quoted;
  for (let i = 0; i < line.length; i++) {
    const char = line.charCodeAt(i);
    if (inQuotes) {
      if (char !== quote) continue;
      if (line.charCodeAt(i + 1) === quote) i++;
      else inQuotes = false;
    } else if (char === comma) {
      started = false;
    } else if (char === quote && !started) {
      inQuotes = true;
      started = true;
    } else {
      started = true;
    }
  }
  return inQuotes;
}
