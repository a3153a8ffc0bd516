import { describe, expect, it } from 'vitest';
import { createCompliancePolicy } from '../../../src/compliance/create-compliance-policy.ts';
import { normalizeComplianceText } from '../../../src/compliance/normalize-compliance-text.ts';

const french = createCompliancePolicy();
const english = createCompliancePolicy({ language: 'en' });

describe('normalizeComplianceText', () => {
  it('folds case and accents, drops surrounding punctuation and emoji, collapses spaces', () => {
    expect(normalizeComplianceText('  «Arrêt» 🛑 ')).toBe('arret');
    expect(normalizeComplianceText('STOP\u00a0\u00a0 ALL!!')).toBe('stop all');
    expect(normalizeComplianceText('ＳＴＯＰ')).toBe('stop');
    expect(normalizeComplianceText('ST\u200bOP')).toBe('stop');
    expect(normalizeComplianceText('Opt-Out')).toBe('opt out');
    expect(normalizeComplianceText("don't stop")).toBe('don t stop');
    expect(normalizeComplianceText('🛑🛑')).toBe('');
  });
});

describe('CompliancePolicy.match', () => {
  const stopForms = [
    'STOP',
    'stop',
    'Stop!',
    ' STOP ',
    'STOP.',
    '«STOP»',
    '"Stop"',
    'stop 🛑',
    '🛑STOP🛑',
    'ＳＴＯＰ',
    'Arrêt',
    'ARRET !',
    'arrêter.',
    'Stop SMS',
    'stop all',
    'STOPALL',
    'Unsubscribe!!',
    'Opt-Out',
    'Désabonner',
    'désinscrire',
  ];

  it.each(stopForms)('%j opts out', (body) => {
    expect(french.match(body)?.kind).toBe('opt-out');
    expect(english.match(body)?.kind).toBe('opt-out');
  });

  const nearMisses = [
    'stop by tomorrow',
    'stopover',
    'non-stop',
    "don't stop",
    'stop it please',
    'helpful',
    'S T O P',
    'stops',
    'Arrête de m’écrire',
    'start the survey',
    '',
    '🛑',
  ];

  it.each(nearMisses)('%j is no keyword', (body) => {
    expect(french.match(body)).toBeUndefined();
  });

  it('answers a word of several languages in the location language, and others in their own', () => {
    expect(french.match('STOP')).toEqual({ kind: 'opt-out', keyword: 'stop', language: 'fr' });
    expect(english.match('STOP')).toEqual({ kind: 'opt-out', keyword: 'stop', language: 'en' });
    expect(english.match('Arrêt')).toEqual({ kind: 'opt-out', keyword: 'arret', language: 'fr' });
    expect(french.match('unsubscribe')).toMatchObject({ language: 'en' });
    expect(french.match('aide')).toEqual({ kind: 'help', keyword: 'aide', language: 'fr' });
    expect(french.match('HELP')).toEqual({ kind: 'help', keyword: 'help', language: 'en' });
    expect(french.match('info')).toMatchObject({ kind: 'help', language: 'fr' });
    expect(french.match('Start')).toEqual({ kind: 'opt-in', keyword: 'start', language: 'fr' });
    expect(english.match('unstop')).toEqual({ kind: 'opt-in', keyword: 'unstop', language: 'en' });
    expect(english.match('opt out')).toMatchObject({ kind: 'opt-out', keyword: 'opt out' });
  });

  it('leaves a claimed word to the bot, but never STOP, ARRET or their variants', () => {
    const claimed = new Set(['cancel', 'annuler', 'help', 'stop', 'arret', 'stop all', 'arreter']);
    expect(french.match('Cancel', claimed)).toBeUndefined();
    expect(french.match('HELP!', claimed)).toBeUndefined();
    expect(french.match('Cancel')).toMatchObject({ kind: 'opt-out' });
    expect(french.match('STOP', claimed)).toMatchObject({ kind: 'opt-out', keyword: 'stop' });
    expect(french.match('Arrêt', claimed)).toMatchObject({ kind: 'opt-out', keyword: 'arret' });
    expect(french.match('stop all', claimed)).toMatchObject({ kind: 'opt-out' });
    expect(french.match('arrêter', claimed)).toMatchObject({ kind: 'opt-out' });
    expect(french.match('END', claimed)).toMatchObject({ kind: 'opt-out', keyword: 'end' });
  });
});
