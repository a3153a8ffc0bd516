import { editDistance } from './edit-distance.ts';
import { foldText, squeezeRepeats } from './fold-text.ts';
import {
  answerAlone,
  hedgePhrases,
  leadingPhrases,
  neutralPhrases,
  noEmoji,
  noPhrases,
  notTypos,
  typoTargets,
  unsurePhrases,
  yesEmoji,
  yesPhrases,
} from './yes-no-words.ts';

type Kind = 'yes' | 'no' | 'unsure' | 'hedge' | 'lead' | 'neutral';
interface Found {
  words: number;
  kinds: ReadonlySet<Kind>;
  phrase: string;
}

const dictionary = new Map<string, Set<Kind>>();
let longest = 1;
const lists: [Kind, readonly string[]][] = [
  ['yes', yesPhrases],
  ['no', noPhrases],
  ['unsure', unsurePhrases],
  ['hedge', hedgePhrases],
  ['lead', leadingPhrases],
  ['neutral', neutralPhrases],
];
for (const [kind, phrases] of lists) {
  for (const phrase of phrases) {
    const words = phrase.split(' ').map(squeezeRepeats);
    longest = Math.max(longest, words.length);
    const key = words.join(' ');
    dictionary.set(key, (dictionary.get(key) ?? new Set()).add(kind));
  }
}

/**
 * Reads a short answer as yes, no, or neither (undefined). The rules, in order:
 * 1. 👍 👌 ✅ ✔ say yes, 👎 ❌ ✖ 🚫 ⛔ say no; both kinds at once say neither.
 * 2. The text is folded (case, accents, apostrophes, punctuation; `vas-y` is `vasy`) and each
 *    run of a repeated letter counts once (`ouiiii`, `yesss`, `nooon`), but real words that
 *    squeeze or typo into an answer (`noon`, `note`, `year`) stay themselves.
 * 3. After greetings, hesitations and thanks (`Bonjour,`, `euh`, `merci`), the message must
 *    start with a known answer phrase (the longest that fits: `no problem` is yes, `of course
 *    not` is no), or one word with one typo (see `typoTargets`).
 * 4. What follows may be anything, except an answer of the other kind, a hesitation
 *    (`je sais pas`, `maybe`), or, after a yes, a hedge (`mais`, `but`, `pas`, `not`).
 * 5. An answer word alone with a question mark (`Oui ?`) is a question, not an answer.
 *
 * @example
 * readYesNo('Bonjour, oui merci !'); // 'yes'
 * readYesNo('pas du tout'); // 'no'
 * readYesNo('oui mais non'); // undefined
 */
export function readYesNo(text: string): 'yes' | 'no' | undefined {
  if (typeof text !== 'string') return undefined;
  const emoji = new Set<'yes' | 'no'>();
  if (yesEmoji.test(text)) emoji.add('yes');
  if (noEmoji.test(text)) emoji.add('no');
  if (emoji.size > 1) return undefined;
  const raw = foldText(text.replace(/(\p{L})-(?=\p{L})/gu, '$1'))
    .replace(/['/]/g, '')
    .split(' ')
    .filter(Boolean);
  const words = raw.map((word) => (notTypos.has(word) ? `#${word}` : squeezeRepeats(word)));
  let at = 0;
  for (let found = lookup(words, at); found && isLead(found); found = lookup(words, at)) {
    at += found.words;
  }
  if (at === words.length) return [...emoji][0];
  const first = lookup(words, at) ?? typo(words[at]!);
  const answer =
    first && (first.kinds.has('yes') ? 'yes' : first.kinds.has('no') ? 'no' : undefined);
  if (!first || !answer || first.kinds.has('unsure')) return undefined;
  if (emoji.size > 0 && !emoji.has(answer)) return undefined;
  // `Oui ?` alone asks what the message is about rather than answering it.
  if (at + first.words === words.length && /\?\s*$/.test(text)) return undefined;
  if (answerAlone.has(first.phrase) && !standsAlone(words, at + first.words, answer)) {
    return undefined;
  }
  for (at += first.words; at < words.length; ) {
    const found = lookup(words, at);
    if (!found) {
      at += 1;
      continue;
    }
    at += found.words;
    if (found.kinds.has('neutral') || answerAlone.has(found.phrase)) continue;
    const other = answer === 'yes' ? 'no' : 'yes';
    if (found.kinds.has(other) || found.kinds.has('unsure')) return undefined;
    if (answer === 'yes' && found.kinds.has('hedge')) return undefined;
  }
  return answer;
}

/** Only greetings, thanks and the same answer follow (`si si`, `Y merci`). */
function standsAlone(words: readonly string[], from: number, answer: 'yes' | 'no'): boolean {
  for (let at = from; at < words.length; ) {
    const found = lookup(words, at);
    if (!found || !(isLead(found) || found.kinds.has(answer))) return false;
    at += found.words;
  }
  return true;
}

function lookup(words: readonly string[], at: number): Found | undefined {
  for (let size = Math.min(longest, words.length - at); size > 0; size--) {
    const phrase = words.slice(at, at + size).join(' ');
    const kinds = dictionary.get(phrase);
    if (kinds) return { words: size, kinds, phrase };
  }
  return undefined;
}

/** A greeting or hesitation, and not an answer (`mais` leads `mais oui`). */
function isLead(found: Found): boolean {
  const { kinds } = found;
  return kinds.has('lead') && !kinds.has('yes') && !kinds.has('no') && !kinds.has('unsure');
}

/** One word read through one typo, when it reads as answers of one kind only. */
function typo(word: string): Found | undefined {
  if (word.startsWith('#')) return undefined;
  const kinds = new Set<Kind>();
  for (const kind of ['yes', 'no'] as const) {
    for (const target of typoTargets[kind].map(squeezeRepeats)) {
      if (isTypoOf(word, target)) kinds.add(kind);
    }
  }
  return kinds.size === 1 ? { words: 1, kinds, phrase: word } : undefined;
}

function isTypoOf(word: string, target: string): boolean {
  if (word === target || word[0] !== target[0]) return false;
  if (target.length <= 3) {
    // Three letters leave too many real neighbours (qui, nom, yet): only a swap is a typo.
    return (
      word.length === target.length &&
      [...word].sort().join('') === [...target].sort().join('') &&
      editDistance(word, target, 1) === 1
    );
  }
  return word.length >= 4 && editDistance(word, target, 1) === 1;
}
