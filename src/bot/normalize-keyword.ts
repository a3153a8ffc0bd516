/**
 * Normalises the first word of a message for keyword matching: case and accents folded,
 * punctuation dropped (`Rdv!` → `rdv`, `ÉTÉ` → `ete`). Returns '' when there is no word.
 */
export function normalizeKeyword(text: string): string {
  const first = text.trim().split(/\s+/, 1)[0] ?? '';
  return first
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');
}
