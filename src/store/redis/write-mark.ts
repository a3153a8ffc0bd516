import { randomBytes } from 'node:crypto';

/**
 * Write marks (conversation-value.ts): the first line of a conversation value built in this
 * process, new for each write, so that the next write built on it is checked in Redis against
 * those few bytes instead of the whole value (issue 26). Unique across processes: a random
 * part drawn when the process starts (48 bits), then a count.
 */
const processPart = randomBytes(6).toString('base64url');
let written = 0;

/** A mark no value was written with before. */
export function newWriteMark(): string {
  written += 1;
  return `${processPart}${written.toString(36)}`;
}

/**
 * What a built write sends as the value it was built on (`valueIs` in
 * lib/conversation-parts.lua): a marked value's mark line alone (`~<mark>\n`), else the whole
 * value ('' for none).
 */
export function builtOn(known: string): string {
  if (!known.startsWith('~')) return known;
  const end = known.indexOf('\n');
  return end < 0 ? known : known.slice(0, end + 1);
}
