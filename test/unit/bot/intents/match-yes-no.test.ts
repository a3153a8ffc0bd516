import { describe, expect, it } from 'vitest';
import { matchNo, matchYes } from '../../../../src/index.ts';

// Real answers to "Reply YES to confirm or NO to cancel" / "Répondez OUI ou NON", as people type them.
const yes = [
  // English short forms and politeness
  'yes',
  'Yes',
  'YES',
  'y',
  'Y',
  'yep',
  'yeah',
  'Yeah!',
  'yup',
  'ok',
  'OK',
  'okay',
  'Okay.',
  'k',
  'sure',
  'Sure thing',
  'certainly',
  'absolutely',
  'of course',
  'yes please',
  'Yes, thank you',
  'yes thanks',
  'Yes!! See you tomorrow',
  'ok thanks',
  'Sounds good',
  'no problem',
  'why not',
  'Hi, yes I will be there',
  'Alright',
  "that's right",
  // French short forms and politeness
  'oui',
  'Oui',
  'OUI',
  'ouais',
  'ouai',
  'ouaip',
  "d'accord",
  'D’accord !',
  'dac',
  'ok merci',
  'Ok d’accord merci',
  'oui merci',
  'Oui, merci beaucoup !',
  'oui svp',
  'bien sûr',
  'Bien sur',
  'absolument',
  'carrément',
  'évidemment',
  'tout à fait',
  'volontiers',
  'avec plaisir',
  'parfait',
  'ça marche',
  'Ca me va',
  "c'est bon",
  'pas de souci',
  'pas de problème',
  'Bonjour, oui je serai là',
  'Oui je confirme',
  'je confirme',
  'Oui oui',
  'mais oui',
  'euh oui',
  'vas-y',
  'Oui, à demain',
  'Bonjour oui merci bonne journée',
  'Oui c’est parfait',
  'Oui, je confirme ma présence',
  'Wé',
  'o.k.',
  'Présente !',
  'je viendrai',
  'Avec grand plaisir',
  'hell yeah',
  'Y merci',
  'Affirmatif',
  'Oui, pouvez-vous me rappeler ?',
  'si si',
  'Bonjour Docteur, oui bien sûr',
  // emoji
  '👍',
  '👍🏽',
  '✅',
  'oui 👍',
  '👍 merci',
  // repeated letters
  'yesss',
  'Yeeees',
  'ouiii',
  'OUIIIII',
  'okkk',
  'ouaiiis',
  // one typo in a longer word, or two letters swapped in a short one
  'yse',
  'oiu',
  'ouias',
  'ouaus',
  'yeha',
  'okqy',
  'daccors',
  'absolumment',
  'certainlt',
];

const no = [
  // English
  'no',
  'No',
  'NO',
  'n',
  'N',
  'nope',
  'nah',
  'no thanks',
  'No thank you.',
  'not at all',
  'never',
  'No way',
  'of course not',
  'absolutely not',
  'not interested',
  "I can't",
  'no, sorry',
  'Not really',
  // French
  'non',
  'Non',
  'NON',
  'nan',
  'non merci',
  'Non merci !',
  'pas du tout',
  'jamais',
  'absolument pas',
  'certainement pas',
  'pas question',
  'Non, je ne peux pas',
  'Non désolé je ne serai pas disponible',
  'Bonjour, non merci',
  'je refuse',
  'pas intéressé',
  'ça ne m’intéresse pas',
  'Non non',
  'mais non',
  'impossible',
  'nop',
  'Négatif',
  'Je serai absente',
  'Pas dispo',
  'not available, sorry',
  'Non c’est bon',
  'Nan merci',
  'Non, ça va merci',
  'Je ne viendrai pas',
  // emoji, repeated letters, typos
  '👎',
  '❌',
  'non 👎',
  'nooon',
  'Noooo',
  'NONNNN',
  'nopr',
  'nevr',
  'jamias',
];

// Words that only start the same way, answers of both kinds, hedges and non-answers.
const neither = [
  'noon',
  'Noon works',
  'yesterday',
  'nonsense',
  'nothing',
  'none',
  'note',
  'nose',
  'year',
  'okapi',
  'ouï-dire',
  'oui-dire',
  'Yesterday I said yes',
  'nonante',
  'ouest',
  'yet',
  'qui',
  'nom',
  'bon',
  'sur',
  'ouo',
  'yesno',
  'oui non',
  'yes no',
  'oui mais non',
  'ok non',
  'Oui mais je serai en retard',
  'yes but not tomorrow',
  'Yes, but I cannot come',
  'non... enfin oui',
  '👍 👎',
  'non 👍',
  'oui 👎',
  'maybe',
  'peut-être',
  'je ne sais pas',
  'je sais pas',
  'no idea',
  'not sure',
  'oui je sais pas',
  'bof',
  '',
  '   ',
  '???',
  'bonjour',
  'merci',
  'STOP',
  'Qui est-ce ?',
  'Nom: Dupont',
  'Can you call me?',
  'Rappelez-moi',
  'Oui ?',
  'y a un souci',
  'si vous voulez',
  'we need to reschedule',
  'Right, I forgot',
  'never mind',
  'go to the next one',
  'Je ne confirme pas',
  'I think so',
  'Nan mais t’es sérieux',
  'de 14h à 16h',
];

describe('matchYes', () => {
  it.each(yes)('reads %j as yes', (text) => {
    expect(matchYes(text)).toBe(true);
    expect(matchNo(text)).toBe(false);
  });
});

describe('matchNo', () => {
  it.each(no)('reads %j as no', (text) => {
    expect(matchNo(text)).toBe(true);
    expect(matchYes(text)).toBe(false);
  });
});

describe('matchYes and matchNo', () => {
  it.each(neither)('read %j as neither', (text) => {
    expect(matchYes(text)).toBe(false);
    expect(matchNo(text)).toBe(false);
  });
});

describe('on input that is not text', () => {
  it('every helper answers "no match" rather than throwing', async () => {
    const { matchChoice, matchNumber, matchDate } = await import('../../../../src/index.ts');
    for (const value of [undefined, null, 42, {}, []]) {
      const text = value as unknown as string;
      expect(matchYes(text)).toBe(false);
      expect(matchNo(text)).toBe(false);
      expect(matchChoice(text, ['a', 'b'])).toBeUndefined();
      expect(matchNumber(text, { min: 0, max: 10 })).toBeUndefined();
      expect(matchDate(text, { now: new Date(0), timeZone: 'Europe/Paris' })).toBeUndefined();
    }
  });

  it('reads a long message without trouble', () => {
    const long = `oui ${'merci beaucoup '.repeat(500)}`;
    expect(matchYes(long)).toBe(true);
  });
});
