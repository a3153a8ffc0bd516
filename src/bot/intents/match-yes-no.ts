import { readYesNo } from './read-yes-no.ts';

/**
 * True when a person's text says yes, in English or French: short forms (`y`, `ok`, `ouais`,
 * `dac`, `bien sûr`, `carrément`), politeness (`Oui, merci beaucoup !`, `yes please`), 👍 ✅,
 * repeated letters (`ouiiii`), one typo in a longer word (`ouias`, `yse`). False for words that
 * only start the same way (`yesterday`, `okapi`), for a hedged yes (`oui mais…`), and for a
 * message that says both or neither.
 *
 * @example
 * matchYes('Oui, merci beaucoup !'); // true
 * matchYes('yesss 👍'); // true
 * matchYes('yesterday'); // false
 * matchYes('oui mais non'); // false
 */
export function matchYes(text: string): boolean {
  return readYesNo(text) === 'yes';
}

/**
 * True when a person's text says no, in English or French: `n`, `nope`, `nah`, `non merci`,
 * `pas du tout`, `jamais`, `no thanks`, 👎 ❌, `nooon`, `nopr`. False for words that only start
 * the same way (`noon`, `nonsense`, `nothing`), for `no problem` / `pas de souci` (a yes), for
 * `no idea` (neither), and for a message that says both or neither.
 *
 * @example
 * matchNo('Non merci'); // true
 * matchNo('👎'); // true
 * matchNo('no problem'); // false
 * matchNo('nonsense'); // false
 */
export function matchNo(text: string): boolean {
  return readYesNo(text) === 'no';
}
