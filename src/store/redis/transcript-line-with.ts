import { storeLimits } from '../store-limits.ts';

/**
 * How many transcript entries a conversation's value keeps inline, as lib/conversation-parts.lua
 * keeps them: past `inlineMost`, all but the newest `inlineKept` move to the conversation's
 * transcript list.
 */
const inlineMost = 8;
const inlineKept = 4;

/**
 * A value's transcript line with one more entry (`i[…]` or `o[…]`), as `transcriptWith` in
 * lib/conversation-parts.lua makes it: `#<count>`, then the entries, oldest first, each after a
 * tab (JSON escapes every tab). Past `inlineMost` entries (when the transcript keeps more than
 * that), the oldest go to `spilled`, oldest first, for the transcript list; with a smaller cap,
 * the oldest past it are dropped.
 */
export function transcriptLineWith(
  line: string,
  entry: string,
  cap: number = storeLimits.transcriptEntries,
): { line: string; spilled: string[] } {
  // A line written before the count starts with its first entry.
  const body = line.startsWith('#') ? line.slice(line.indexOf('\t') + 1) : line;
  const entries = body === '' ? [entry] : [...body.split('\t'), entry];
  const spilling = cap > inlineMost && entries.length > inlineMost;
  const keep = spilling ? inlineKept : cap;
  const cut = Math.max(0, entries.length - keep);
  const kept = entries.slice(cut);
  return {
    line: `#${kept.length}\t${kept.join('\t')}`,
    spilled: spilling ? entries.slice(0, cut) : [],
  };
}

/** How many entries the transcript list keeps: the cap less the value's inline ones. */
export const transcriptListKept = (cap: number = storeLimits.transcriptEntries) => cap - inlineKept;
