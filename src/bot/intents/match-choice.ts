import { editDistance } from './edit-distance.ts';
import { foldText } from './fold-text.ts';
import { readNumberWord } from './number-words.ts';
import { readOrdinal } from './read-ordinal.ts';

/** Words around a choice that do not say which one (`je prends la 2`, `I'll take the first`). */
const filler = new Set(
  `le la les l the a an option choix choice number numero num no n nr reponse answer je j
   prends prendrais choisis choisirais i ill id take pick choose say dirais plutot rather
   merci thanks please svp stp pour moi me c cest it is its ca sera will be de du des
   voudrais want would like prefer prefere ok alors celle celui one`
    .split(/\s+/)
    .filter(Boolean),
);

/**
 * Reads which of `choices` a person picked, as a 0-based index:
 * - by number: `2`, `2.`, `2)`, `#2`, `n°2`, `option 2`, `deux`;
 * - by ordinal: `le deuxième`, `la 2e`, `the second`, `2nd`, `premier`, `first`, `last`;
 * - by the text, ignoring case and accents (`telephone` for `Par téléphone`), with one typo in
 *   a word of 4 letters or more and two in a word of 8 or more.
 * Undefined when nothing matches, when the number is out of range, or when the message points
 * at two choices (`1 ou 2`, `rouge ou bleu`, a number and a text that disagree).
 *
 * @example
 * const choices = ['Par SMS', 'Par téléphone', 'Par e-mail'];
 * matchChoice('2', choices); // 1
 * matchChoice('le troisième', choices); // 2
 * matchChoice('telephone svp', choices); // 1
 * matchChoice('4', choices); // undefined
 */
export function matchChoice(text: string, choices: readonly string[]): number | undefined {
  if (typeof text !== 'string' || !Array.isArray(choices)) return undefined;
  const message = foldText(text).replace(/'/g, ' ');
  const folded = choices.map((choice) => foldText(String(choice)).replace(/'/g, ' '));
  const exact = folded.indexOf(message);
  if (message === '') return undefined;
  if (exact >= 0 && folded.lastIndexOf(message) === exact) return exact;
  const byText = matchText(message, folded);
  if (byText === 'ambiguous') return undefined;
  // A number that belongs to the chosen text (`Paris 15`) is not a position.
  const own = byText === undefined ? [] : folded[byText]!.split(' ');
  const positions = readPositions(message.split(' '), choices.length, own);
  if (positions.size > 1) return undefined;
  if (positions.size === 0) return byText;
  const [position] = positions as unknown as [number];
  if (position < 1 || position > choices.length) return undefined;
  if (byText !== undefined && byText !== position - 1) return undefined;
  return position - 1;
}

function readPositions(words: readonly string[], count: number, own: readonly string[]) {
  const positions = new Set<number>();
  const content = words.filter((word) => !filler.has(word));
  for (const word of words) {
    if (own.includes(word)) continue;
    if (/^\d+$/.test(word)) positions.add(Number(word));
    const ordinal = readOrdinal(word, count);
    if (ordinal !== undefined) positions.add(ordinal);
  }
  // A number word is a position only when it is all the message says (`deux`, `option deux`).
  const word = readNumberWord(content, 0);
  if (word && word.words === content.length && !own.includes(content[0]!)) {
    positions.add(word.value);
  }
  return positions;
}

function matchText(message: string, choices: readonly string[]): number | 'ambiguous' | undefined {
  // Every word the person wrote is (nearly) a word of the choice: `telephone`, `mecredi 14h`.
  const content = contentWords(message);
  const near = choices
    .map((choice, index) => ({ words: contentWords(choice), index }))
    .filter(
      ({ words }) =>
        content.length > 0 && content.every((word) => words.some((w) => isNear(word, w))),
    );
  // `rouge` is both in `Rouge` and `Rouge foncé`: the choice it says entirely wins.
  const whole = near.filter(({ words }) => words.every((w) => content.some((c) => isNear(c, w))));
  const picked = near.length === 1 ? near : whole;
  if (picked.length === 1) return picked[0]!.index;
  if (picked.length > 1 || near.length > 1) return 'ambiguous';
  // The message holds a choice's whole text among other words: `je veux être appelé par téléphone`.
  const inside = choices
    .map((choice, index) => ({ choice, index }))
    .filter(({ choice }) => choice !== '' && ` ${message} `.includes(` ${choice} `));
  const widest = inside.filter(
    ({ choice }) =>
      !inside.some((other) => other.choice !== choice && other.choice.includes(choice)),
  );
  if (widest.length === 1) return widest[0]!.index;
  return widest.length > 1 ? 'ambiguous' : undefined;
}

function contentWords(text: string): string[] {
  return text.split(' ').filter((word) => word !== '' && !filler.has(word) && !/^\d+$/.test(word));
}

function isNear(word: string, target: string): boolean {
  if (word === target) return true;
  const allowed = target.length >= 8 ? 2 : target.length >= 4 ? 1 : 0;
  return allowed > 0 && editDistance(word, target, allowed) <= allowed;
}
