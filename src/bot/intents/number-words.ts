const words: Record<string, number> = {};
const french =
  'zero un deux trois quatre cinq six sept huit neuf dix onze douze treize quatorze quinze seize'.split(
    ' ',
  );
const english =
  'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty'.split(
    ' ',
  );
french.forEach((word, value) => {
  words[word] = value;
});
english.forEach((word, value) => {
  words[word] = value;
});
Object.assign(words, { une: 1, 'dix sept': 17, 'dix huit': 18, 'dix neuf': 19, vingt: 20 });

/** French articles that are also "one": read as a number only when no other number is there. */
export const articleNumbers = new Set(['un', 'une']);

/**
 * Reads a number written in words, zero to twenty, in English or French, at `at` in a list of
 * folded words (`dix-sept` folds to `dix sept`, two words). Returns the value and how many
 * words it took.
 *
 * @example
 * readNumberWord(['je', 'dirais', 'dix', 'sept'], 2); // { value: 17, words: 2 }
 */
export function readNumberWord(
  folded: readonly string[],
  at: number,
): { value: number; words: number } | undefined {
  const pair = `${folded[at]} ${folded[at + 1]}`;
  if (words[pair] !== undefined) return { value: words[pair], words: 2 };
  const one = words[folded[at] ?? ''];
  return one === undefined ? undefined : { value: one, words: 1 };
}
