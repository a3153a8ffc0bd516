import { describe, expect, it } from 'vitest';
import { matchChoice } from '../../../../src/index.ts';

const channels = ['Par SMS', 'Par téléphone', 'Par e-mail'];
const slots = ['Mardi 10h', 'Mercredi 14h', 'Jeudi 9h30'];
const shades = ['Rouge', 'Rouge foncé', 'Bleu'];
const english = ['Morning', 'Afternoon', 'Evening'];

const cases: [string, readonly string[], number | undefined][] = [
  // by number
  ['2', channels, 1],
  ['2.', channels, 1],
  ['2)', channels, 1],
  ['#2', channels, 1],
  ['n°3', channels, 2],
  ['option 1', channels, 0],
  ['Je prends la 3', channels, 2],
  ['deux', channels, 1],
  ['three', english, 2],
  // by ordinal
  ['le deuxième', channels, 1],
  ['la 2e', channels, 1],
  ['La première', channels, 0],
  ['premier', slots, 0],
  ['le 3ème', slots, 2],
  ['the second', english, 1],
  ['2nd', english, 1],
  ['first', english, 0],
  ['the last one', english, 2],
  ['le dernier', slots, 2],
  // by text, ignoring case and accents, with light typos
  ['telephone', channels, 1],
  ['TÉLÉPHONE svp', channels, 1],
  ['telephon', channels, 1],
  ['par mail', channels, 2],
  ['email', channels, 2],
  ['sms', channels, 0],
  ['mercredi', slots, 1],
  ['Mecredi', slots, 1],
  ['jeudi 9h30', slots, 2],
  ['rouge', shades, 0],
  ['rouge foncée', shades, 1],
  ['roug', shades, 0],
  ['evning', english, 2],
  ['Je voudrais plutôt être appelé par téléphone', channels, 1],
  // a number and a text that agree
  ['2 mercredi', slots, 1],
  // refusals: out of range, ambiguous, unrelated
  ['4', channels, undefined],
  ['0', channels, undefined],
  ['le quatrième', channels, undefined],
  ['1 ou 2', channels, undefined],
  ['sms ou mail', channels, undefined],
  ['rouge ou bleu', shades, undefined],
  ['par', channels, undefined],
  ['3 mercredi', slots, undefined],
  ['vendredi', slots, undefined],
  ['', channels, undefined],
  ['je ne sais pas', channels, undefined],
];

describe('matchChoice', () => {
  it.each(cases)('reads %j among %j as %j', (text, choices, expected) => {
    expect(matchChoice(text, choices)).toBe(expected);
  });

  it('keeps a number that belongs to the chosen text from reading as a position', () => {
    expect(matchChoice('Paris 15', ['Paris 15', 'Lyon 3'])).toBe(0);
    expect(matchChoice('lyon 3', ['Paris 15', 'Lyon 3'])).toBe(1);
  });
});
