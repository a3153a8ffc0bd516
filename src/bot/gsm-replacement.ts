/**
 * Characters that force a whole SMS into UCS-2 (70 characters a part instead of 160) and the
 * GSM-7 text that reads the same. French typography is the usual culprit: the curly apostrophe
 * that word processors and phones insert, `ê â î ô û ç`, guillemets and the non-breaking space
 * before `?` and `!`.
 */
const replacements: Record<string, string> = {
  '\u2019': "'",
  '\u2018': "'",
  '\u02bc': "'",
  '\u00b4': "'",
  '\u201c': '"',
  '\u201d': '"',
  '\u201e': '"',
  '\u00ab': '"',
  '\u00bb': '"',
  '\u2039': "'",
  '\u203a': "'",
  '\u2026': '...',
  '\u2013': '-',
  '\u2014': '-',
  '\u2010': '-',
  '\u2011': '-',
  '\u2212': '-',
  '\u00a0': ' ',
  '\u202f': ' ',
  '\u2009': ' ',
  '\u2007': ' ',
  '\u00ad': '',
  '\u0153': 'oe',
  '\u0152': 'OE',
  '\u00e6': 'ae',
  '\u2022': '-',
  '\u00b7': '.',
  '\u2122': 'TM',
  '\u00a9': '(c)',
  '\u00ae': '(R)',
  '\u00b0': ' deg',
  '\u00bd': '1/2',
  '\u00bc': '1/4',
  '\u00be': '3/4',
  '\u00d7': 'x',
  '\u00f7': '/',
};

/**
 * The GSM-7 text to use instead of a character that forces UCS-2, or undefined when there is
 * none (emoji, non-Latin scripts). Accented letters outside GSM-7 lose their accent
 * (`ê → e`, `ç → c`, `Ê → E`); the result is checked by the caller against GSM-7.
 *
 * @example
 * gsmReplacement('’'); // "'"
 * gsmReplacement('ê'); // 'e'
 * gsmReplacement('😀'); // undefined
 */
export function gsmReplacement(character: string): string | undefined {
  const known = replacements[character];
  if (known !== undefined) return known;
  const bare = character.normalize('NFD').replace(/\p{M}/gu, '');
  return bare !== character && /^[A-Za-z]+$/.test(bare) ? bare : undefined;
}
