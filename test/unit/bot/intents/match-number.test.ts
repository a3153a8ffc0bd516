import { describe, expect, it } from 'vitest';
import { matchNumber } from '../../../../src/index.ts';

const score = { min: 0, max: 10 };

const cases: [string, number | undefined][] = [
  ['8', 8],
  ['0', 0],
  ['10', 10],
  ['  7 ', 7],
  ['7/10', 7],
  ['10/10', 10],
  ['7 sur 10', 7],
  ['7 out of 10', 7],
  ['neuf sur dix', 9],
  ['je dirais 6', 6],
  ["I'd say 8", 8],
  ['Je mets un 9 sur 10 !', 9],
  ['note : 9', 9],
  ['huit.', 8],
  ['zéro', 0],
  ['Zero', 0],
  ['dix', 10],
  ['seven', 7],
  ['sept', 7],
  ['une', 1],
  ['8 ! oui 8', 8],
  ['2.0', 2],
  // refusals
  ['11', undefined],
  ['-1', undefined],
  ['7 ou 8', undefined],
  ['7-8', undefined],
  ['between 6 and 7', undefined],
  ['7,5', undefined],
  ['7.5', undefined],
  ['rien', undefined],
  ['', undefined],
  ['beaucoup', undefined],
];

describe('matchNumber', () => {
  it.each(cases)('reads %j on a 0-10 scale as %j', (text, expected) => {
    expect(matchNumber(text, score)).toBe(expected);
  });

  it('reads number words up to twenty in both languages', () => {
    const range = { min: 0, max: 20 };
    expect(matchNumber('Dix-sept', range)).toBe(17);
    expect(matchNumber('dix sept', range)).toBe(17);
    expect(matchNumber('seventeen', range)).toBe(17);
    expect(matchNumber('dix-neuf', range)).toBe(19);
    expect(matchNumber('vingt', range)).toBe(20);
    expect(matchNumber('twenty', range)).toBe(20);
    expect(matchNumber('quatorze', range)).toBe(14);
    expect(matchNumber('eleven', range)).toBe(11);
  });

  it('reads decimals and negative numbers only when the range asks for them', () => {
    expect(matchNumber('7,5', { min: 0, max: 10, decimals: true })).toBe(7.5);
    expect(matchNumber('7.25', { min: 0, max: 10, decimals: true })).toBe(7.25);
    expect(matchNumber('-3', { min: -5, max: 5 })).toBe(-3);
    expect(matchNumber('12')).toBe(12);
  });
});
