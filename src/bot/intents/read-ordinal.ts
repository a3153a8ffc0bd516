const named: Record<string, number> = {
  premier: 1,
  premiere: 1,
  first: 1,
  deuxieme: 2,
  second: 2,
  seconde: 2,
  troisieme: 3,
  third: 3,
  quatrieme: 4,
  fourth: 4,
  cinquieme: 5,
  fifth: 5,
  sixieme: 6,
  sixth: 6,
  septieme: 7,
  seventh: 7,
  huitieme: 8,
  eighth: 8,
  neuvieme: 9,
  ninth: 9,
  dixieme: 10,
  tenth: 10,
};

/** Words that name the last item of a list, whatever its length. */
const last = new Set(['last', 'dernier', 'derniere']);

/**
 * Reads an ordinal in English or French from one folded word, as a 1-based position:
 * `premier`, `deuxième`, `2e`, `2ème`, `1er`, `1re`, `the second`, `2nd`, `3rd`, `10th`;
 * `last`/`dernier` is the `count`-th.
 *
 * @example
 * readOrdinal('deuxieme', 4); // 2
 * readOrdinal('dernier', 4); // 4
 */
export function readOrdinal(word: string, count: number): number | undefined {
  if (named[word] !== undefined) return named[word];
  if (last.has(word)) return count;
  const written = /^(\d+)(?:e|eme|er|ere|re|nd|nde|d|st|rd|th)$/.exec(word);
  return written ? Number(written[1]) : undefined;
}
