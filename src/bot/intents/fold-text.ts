/**
 * Folds a person's text for matching: lower case, accents dropped (`Très` → `tres`), curly
 * apostrophes made straight, and every run of punctuation or spaces made one space. Digits,
 * letters, `'` and `/` stay; emoji are dropped (read them before folding).
 *
 * @example
 * foldText('  Oui, MERCI   beaucoup ! '); // 'oui merci beaucoup'
 */
export function foldText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc`´]/g, "'")
    .replace(/[^\p{L}\p{N}'/]+/gu, ' ')
    .trim();
}

/**
 * One letter for each run of the same letter, so elongated answers read as the word
 * (`ouiiii` → `oui`, `yesss` → `yes`, `nooon` → `non`). Both sides of a comparison are squeezed.
 *
 * @example
 * squeezeRepeats('yesssss'); // 'yes'
 */
export function squeezeRepeats(word: string): string {
  return word.replace(/(\p{L})\1+/gu, '$1');
}
