import { SegmentedMessage } from 'sms-segments-calculator';
import { describe, expect, it } from 'vitest';
import { createCompliancePolicy } from '../../../src/compliance/create-compliance-policy.ts';
import { ConfigError } from '../../../src/errors.ts';

function refusal(config: unknown): string {
  try {
    createCompliancePolicy(config as never);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('the config was accepted');
}

describe('createCompliancePolicy', () => {
  it('defaults: French, no quiet hours, 10 messages per minute, no group', () => {
    const policy = createCompliancePolicy();
    expect(policy.language).toBe('fr');
    expect(policy.quietHours).toBeUndefined();
    expect(policy.loopGuard).toEqual({ max: 10, windowMs: 60_000 });
    expect(policy.group).toBeUndefined();
  });

  it('reads the loop guard, the group and the quiet hours', () => {
    const policy = createCompliancePolicy({
      loopGuard: { max: 3, window: '30s' },
      group: 12,
      quietHours: {
        timeZone: 'Europe/Paris',
        window: '21:00-08:00',
        days: ['Sunday', 'sat', 'mercredi'],
      },
    });
    expect(policy.loopGuard).toEqual({ max: 3, windowMs: 30_000 });
    expect(policy.group).toBe(12);
    expect(policy.quietHours).toEqual({
      timeZone: 'Europe/Paris',
      window: { start: 1260, end: 480 },
      days: new Set([0, 6, 3]),
      dates: new Set(),
    });
  });

  it('adds words with their language, and removes words', () => {
    const policy = createCompliancePolicy({
      keywords: {
        add: [
          { word: 'Réabonner', kind: 'opt-in', language: 'fr' },
          { word: 'BAJA', kind: 'opt-out', language: 'es' },
        ],
        remove: ['cancel', 'END'],
      },
    });
    expect(policy.match('réabonner!')).toEqual({
      kind: 'opt-in',
      keyword: 'reabonner',
      language: 'fr',
    });
    expect(policy.match('Baja')).toEqual({ kind: 'opt-out', keyword: 'baja', language: 'es' });
    expect(policy.match('CANCEL')).toBeUndefined();
    expect(policy.match('end')).toBeUndefined();
    expect(policy.match('stop')).toMatchObject({ kind: 'opt-out' });
  });

  it.each(['STOP', 'Arrêt', 'help'])('refuses to remove %j, naming it', (word) => {
    const message = refusal({ keywords: { remove: ['quit', word] } });
    expect(message).toContain('compliance.keywords.remove.1');
    expect(message).toContain(`'${word}' cannot be removed`);
  });

  it('refuses unknown words to remove, conflicting additions, bad languages and unknown keys', () => {
    expect(refusal({ keywords: { remove: ['STOPP'] } })).toContain(
      "'STOPP' is not a compliance keyword",
    );
    expect(
      refusal({ keywords: { add: [{ word: 'cancel', kind: 'help', language: 'en' }] } }),
    ).toMatch(/keywords\.add\.0\.word 'cancel' is already an opt-out word/);
    expect(refusal({ language: 'French' })).toContain(
      'compliance.language must be a language code',
    );
    expect(refusal({ quietHour: {} })).toContain('quietHour');
    expect(refusal({ keywords: { add: [{ word: '!!', kind: 'help', language: 'en' }] } })).toMatch(
      /keywords\.add\.0\.word must have letters or digits/,
    );
  });

  it('refuses a language it has no texts for unless the texts are given', () => {
    const message = refusal({ language: 'de' });
    expect(message).toContain('compliance.texts.opt-out.de is needed');
    expect(message).toContain('compliance.texts.help.de is needed');
    const policy = createCompliancePolicy({
      language: 'de',
      programName: 'Laden',
      texts: {
        'opt-out': { de: '{program}: Abgemeldet.' },
        'opt-in': { de: 'Angemeldet.' },
        help: { de: 'Hilfe.' },
      },
    });
    expect(policy.text('opt-out')).toBe('Laden: Abgemeldet.');
    expect(policy.text('opt-out', 'en')).toMatch(/^Laden: you are unsubscribed/);
  });

  it('refuses a text that names a detail that is not set', () => {
    expect(refusal({ texts: { help: { fr: 'Aide de {program}' } } })).toContain(
      'compliance.texts.help.fr uses {program} but compliance.programName is not set',
    );
  });

  it('refuses bad loop guards, groups, time zones and windows clearly', () => {
    expect(refusal({ loopGuard: { window: 'soon' } })).toContain(
      'compliance.loopGuard.window must be a duration',
    );
    expect(refusal({ loopGuard: { max: 0 } })).toContain('compliance.loopGuard.max');
    expect(refusal({ group: 'vip' })).toContain('compliance.group');
    expect(refusal({ quietHours: { timeZone: 'Europe/Pariss', window: '21:00-08:00' } })).toContain(
      "compliance.quietHours.timeZone 'Europe/Pariss' is not a known time zone",
    );
    expect(refusal({ quietHours: { timeZone: 'Europe/Paris', window: '9pm-8am' } })).toContain(
      'compliance.quietHours.window must be a window such as 21:00-08:00',
    );
    expect(refusal({ quietHours: { timeZone: 'Europe/Paris', window: '25:00-08:00' } })).toContain(
      'compliance.quietHours.window must be a window',
    );
    expect(refusal({ quietHours: { timeZone: 'Europe/Paris', window: '08:00-08:00' } })).toContain(
      'same time',
    );
    expect(refusal({ quietHours: { timeZone: 'Europe/Paris' } })).toContain(
      'needs a window, days or dates',
    );
    expect(refusal({ quietHours: { timeZone: 'UTC', days: ['noday'] } })).toContain(
      'compliance.quietHours.days.0 must be a day of the week',
    );
    expect(refusal({ quietHours: { timeZone: 'UTC', dates: ['02-30'] } })).toContain(
      'compliance.quietHours.dates.0 must be a date',
    );
    const everyDay = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
    expect(refusal({ quietHours: { timeZone: 'UTC', days: everyDay } })).toContain(
      'names every day of the week',
    );
  });
});

describe('CompliancePolicy.text', () => {
  const policy = createCompliancePolicy({ programName: 'Salon Lila', contact: '01 23 45 67 89' });

  it('writes the default texts in French and English, naming the program and the contact', () => {
    expect(policy.text('opt-out')).toBe(
      'Salon Lila : vous ne recevrez plus de SMS. Pour vous réinscrire, répondez START.',
    );
    expect(policy.text('opt-out', 'en')).toBe(
      'Salon Lila: you are unsubscribed and will receive no more messages. Reply START to opt back in.',
    );
    expect(policy.text('help')).toContain('STOP');
    expect(policy.text('help')).toContain('Contact : 01 23 45 67 89');
    expect(policy.text('help', 'en')).toContain('Contact: 01 23 45 67 89');
    expect(createCompliancePolicy().text('help')).toBe(
      'SMS automatiques. Répondez STOP pour ne plus en recevoir.',
    );
  });

  it('falls back to the location language for a language it has no text in', () => {
    expect(policy.text('opt-in', 'es')).toBe(policy.text('opt-in', 'fr'));
    const english = createCompliancePolicy({ language: 'en' });
    expect(english.text('opt-in', 'xx')).toBe(english.text('opt-in', 'en'));
  });

  it('uses the location texts first, with their details filled in', () => {
    const custom = createCompliancePolicy({
      programName: 'Lila',
      texts: { 'opt-out': { fr: '{program} : plus de SMS. START pour revenir.' } },
    });
    expect(custom.text('opt-out')).toBe('Lila : plus de SMS. START pour revenir.');
    expect(custom.text('opt-out', 'en')).toMatch(/^Lila: you are unsubscribed/);
  });

  it.each(['fr', 'en'])('keeps every %s default to one GSM-7 segment', (language) => {
    for (const details of [{}, { programName: 'Salon Lila Paris 11', contact: '01 23 45 67 89' }]) {
      const local = createCompliancePolicy(details);
      for (const kind of ['opt-out', 'opt-in', 'help'] as const) {
        const text = local.text(kind, language);
        const segments = new SegmentedMessage(text);
        expect({
          text,
          encoding: segments.getEncodingName(),
          count: segments.segmentsCount,
        }).toEqual({
          text,
          encoding: 'GSM-7',
          count: 1,
        });
      }
    }
  });
});
