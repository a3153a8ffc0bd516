import { SegmentedMessage } from 'sms-segments-calculator';
import { describe, expect, it } from 'vitest';
import { describeEncoding, lintMessage } from '../../../src/index.ts';

const a = (n: number) => 'a'.repeat(n);

// [text, encoding, parts, characters, units], counted by hand: GSM-7 holds 160 septets in one
// part and 153 a part beyond; UCS-2 70 units, then 67. `^{}\[~]|€` take two septets, an emoji
// two UCS-2 units, and neither is cut across two parts.
const messages: [string, 'GSM-7' | 'UCS-2', number, number, number][] = [
  ['Bonjour', 'GSM-7', 1, 7, 7],
  ['Répondez OUI ou NON', 'GSM-7', 1, 19, 19],
  ['Ça va ?', 'GSM-7', 1, 7, 7],
  ['Line\nbreak', 'GSM-7', 1, 10, 10],
  [a(160), 'GSM-7', 1, 160, 160],
  [a(161), 'GSM-7', 2, 161, 161],
  [a(306), 'GSM-7', 2, 306, 306],
  [a(307), 'GSM-7', 3, 307, 307],
  ['Prix : 10€', 'GSM-7', 1, 10, 11],
  ['^{}\\[~]|€', 'GSM-7', 1, 9, 18],
  [`${a(158)}{`, 'GSM-7', 1, 159, 160],
  [`${a(159)}{`, 'GSM-7', 2, 160, 161],
  ['€'.repeat(80), 'GSM-7', 1, 80, 160],
  // 76 € fill a part of 153 septets (152): the 77th cannot be cut in two.
  ['€'.repeat(81), 'GSM-7', 2, 81, 162],
  ['€'.repeat(153), 'GSM-7', 3, 153, 306],
  ['ça va ?', 'UCS-2', 1, 7, 7],
  ['Bientôt', 'UCS-2', 1, 7, 7],
  ['C’est noté', 'UCS-2', 1, 10, 10],
  ['Déjà vu…', 'UCS-2', 1, 8, 8],
  ['hé\u00a0oui', 'UCS-2', 1, 6, 6],
  ['œuvre', 'UCS-2', 1, 5, 5],
  ['ê'.repeat(70), 'UCS-2', 1, 70, 70],
  ['ê'.repeat(71), 'UCS-2', 2, 71, 71],
  ['ê'.repeat(134), 'UCS-2', 2, 134, 134],
  ['ê'.repeat(135), 'UCS-2', 3, 135, 135],
  ['👍', 'UCS-2', 1, 1, 2],
  ['👍'.repeat(35), 'UCS-2', 1, 35, 70],
  // 33 emoji fill a part of 67 units (66).
  ['👍'.repeat(36), 'UCS-2', 2, 36, 72],
  [`${a(68)}😀`, 'UCS-2', 1, 69, 70],
  [`${a(69)}😀`, 'UCS-2', 2, 70, 71],
  // The example: 268 characters with one "û" went out as 4 UCS-2 parts.
  [`û${a(267)}`, 'UCS-2', 4, 268, 268],
  [`${a(160)}’`, 'UCS-2', 3, 161, 161],
];

describe('lintMessage', () => {
  it.each(messages)('counts %j as %s in %i part(s)', (text, encoding, parts, characters, units) => {
    const lint = lintMessage(text);
    const library = new SegmentedMessage(text);
    expect(lint.encoding).toBe(library.encodingName);
    expect(lint.segments).toBe(library.segmentsCount);
    expect(lint).toMatchObject({ encoding, segments: parts, characters, units });
    expect(describeEncoding(text)).toEqual({ encoding, segments: parts });
  });

  it('names each character that forces UCS-2, once, with its GSM-7 replacement', () => {
    const { warnings } = lintMessage('C’est noté, à bientôt ! « Ça » coûte… l’œuf\u00a0? façon');
    const text = warnings.join('\n');
    expect(text).toContain("'’' (U+2019) forces UCS-2");
    expect(text).toMatch(/'’' .*write ' instead/);
    expect(text).toMatch(/'ô' .*write o instead/);
    expect(text).toMatch(/'û' .*write u instead/);
    expect(text).toMatch(/'ç' .*write c instead/);
    expect(text).toMatch(/'«' .*write " instead/);
    expect(text).toMatch(/'»' .*write " instead/);
    expect(text).toMatch(/'…' .*write \.\.\. instead/);
    expect(text).toMatch(/'œ' .*write oe instead/);
    expect(text).toMatch(/U\+00A0 .*write a plain space instead/);
    // é, à and Ç are GSM-7: no warning; ’ appears twice but is named once.
    expect(text).not.toMatch(/'[éàÇ]'/);
    expect(warnings.filter((w) => w.includes('U+2019'))).toHaveLength(1);
    expect(warnings).toHaveLength(9);
  });

  it('says when a character has no GSM-7 equivalent', () => {
    expect(lintMessage('Merci 😀').warnings).toEqual([
      "'😀' (U+1F600) forces UCS-2 (70 characters a part instead of 160): no GSM-7 equivalent, remove it to send in GSM-7",
    ]);
  });

  it('warns past 2 parts, and not at 2', () => {
    expect(lintMessage(a(306)).warnings).toEqual([]);
    expect(lintMessage(a(307)).warnings).toEqual([
      '3 parts (GSM-7): shorten it to 2 parts or fewer, each part is billed',
    ]);
    expect(lintMessage(`û${a(267)}`).warnings).toContain(
      '4 parts (UCS-2): shorten it to 2 parts or fewer, each part is billed',
    );
  });

  it('gives a GSM-7 text no warning', () => {
    expect(
      lintMessage('Votre rendez-vous est confirmé pour jeudi à 10h. Répondez OUI ou NON.'),
    ).toEqual({
      encoding: 'GSM-7',
      segments: 1,
      characters: 69,
      units: 69,
      warnings: [],
    });
  });
});

describe('describeEncoding, the sender’s fast count', () => {
  it('agrees with sms-segments-calculator on GSM-7 texts of every length to 480, and on others', () => {
    const basic = 'Merci Ana, à demain 10h! Réponse: OUI/NON? £5 @ 12:00 ; ÇÉñüß_Δ\n';
    const texts = Array.from({ length: 480 }, (_, n) =>
      Array.from({ length: n + 1 }, (_, i) => basic[(i * 7 + n) % basic.length]).join(''),
    );
    texts.push('prix: 5€ {ok}', 'ça va ?', 'l’heure', '👍 merci', 'x'.repeat(161) + '[', '');
    for (const text of texts) {
      const library = new SegmentedMessage(text);
      expect(describeEncoding(text), JSON.stringify(text)).toEqual({
        encoding: library.encodingName,
        segments: library.segmentsCount,
      });
    }
  });
});
