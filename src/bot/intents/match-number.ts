import { articleNumbers, readNumberWord } from './number-words.ts';

/** The range `matchNumber` accepts. */
export interface NumberRange {
  /** Smallest accepted value, inclusive. Default: no limit. */
  min?: number;
  /** Largest accepted value, inclusive. Default: no limit. */
  max?: number;
  /**
   * Accept decimals (`7,5`, `7.5`). Default false: a scale of whole numbers asks again rather
   * than rounding what the person wrote.
   */
  decimals?: boolean;
}

interface Mention {
  value: number;
  article: boolean;
}

/**
 * Reads the one number in a short answer: digits (`8`, `-2`, `7,5` with `decimals`), a score
 * (`7/10`, `7 sur 10`, `7 out of 10`: the first number), or a word from zero to twenty in
 * English or French (`dix-sept`, `seventeen`), anywhere in a short sentence (`je dirais 6`,
 * `I'd say 8`). Undefined when there is none, when two different numbers are given
 * (`7 ou 8`, `7-8`), or when it is out of range. The French article `un`/`une` counts only
 * when no other number is there (`un 8` is 8).
 *
 * @example
 * matchNumber('je dirais 6', { min: 0, max: 10 }); // 6
 * matchNumber('7/10', { min: 0, max: 10 }); // 7
 * matchNumber('Dix-sept', { min: 0, max: 20 }); // 17
 * matchNumber('11', { min: 0, max: 10 }); // undefined
 * matchNumber('7 ou 8', { min: 0, max: 10 }); // undefined
 */
export function matchNumber(text: string, range: NumberRange = {}): number | undefined {
  if (typeof text !== 'string') return undefined;
  const tokens =
    text
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .match(/(?<![\p{L}\p{N}])-(?=\d)|\d+(?:[.,]\d+)?|\p{L}+|\//gu) ?? [];
  const mentions: Mention[] = [];
  for (let at = 0; at < tokens.length; ) {
    const negative = tokens[at] === '-';
    const token = tokens[negative ? at + 1 : at]!;
    let mention: Mention | undefined;
    let used = negative ? 2 : 1;
    if (/^\d/.test(token)) {
      mention = { value: (negative ? -1 : 1) * Number(token.replace(',', '.')), article: false };
    } else {
      const word = negative ? undefined : readNumberWord(tokens, at);
      if (word) {
        mention = { value: word.value, article: articleNumbers.has(token) };
        used = word.words;
      }
    }
    at += used;
    if (!mention) continue;
    mentions.push(mention);
    // "7/10", "7 sur 10", "7 out of 10", "7 on 10": the scale is not an answer.
    const over = scaleWords(tokens, at);
    if (over > 0 && (readNumberWord(tokens, at + over) || /^\d/.test(tokens[at + over] ?? ''))) {
      at += over + (readNumberWord(tokens, at + over)?.words ?? 1);
    }
  }
  const real = mentions.some((m) => !m.article) ? mentions.filter((m) => !m.article) : mentions;
  const values = new Set(real.map((m) => m.value));
  if (values.size !== 1) return undefined;
  const [value] = values as unknown as [number];
  if (!Number.isFinite(value) || (!range.decimals && !Number.isInteger(value))) return undefined;
  if (value < (range.min ?? Number.NEGATIVE_INFINITY)) return undefined;
  if (value > (range.max ?? Number.POSITIVE_INFINITY)) return undefined;
  return value;
}

function scaleWords(tokens: readonly string[], at: number): number {
  if (tokens[at] === '/' || tokens[at] === 'sur' || tokens[at] === 'on') return 1;
  return tokens[at] === 'out' && tokens[at + 1] === 'of' ? 2 : 0;
}
