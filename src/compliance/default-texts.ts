import type { ComplianceKind } from './compliance-kind.ts';

/** What the default texts may name: the program (the sender people know) and a contact. */
export interface TextDetails {
  programName?: string;
  contact?: string;
}

type DefaultText = (details: TextDetails) => string;

/**
 * The default confirmation and help texts, in the languages replyflow ships. Each is GSM-7 only
 * (no ê, ç or curly quote, which would make it a UCS-2 message of 70 characters a segment) and
 * fits one segment with a program name and a contact of usual length.
 */
export const defaultTexts: Readonly<Record<string, Record<ComplianceKind, DefaultText>>> = {
  fr: {
    'opt-out': ({ programName }) =>
      (programName ? `${programName} : vous` : 'Vous') +
      ' ne recevrez plus de SMS. Pour vous réinscrire, répondez START.',
    'opt-in': ({ programName }) =>
      (programName ? `${programName} : c'est` : "C'est") +
      ' noté, vous recevrez à nouveau nos SMS. Répondez STOP pour ne plus en recevoir.',
    help: ({ programName, contact }) =>
      (programName ? `${programName} : SMS` : 'SMS') +
      ' automatiques. Répondez STOP pour ne plus en recevoir.' +
      (contact ? ` Contact : ${contact}` : ''),
  },
  en: {
    'opt-out': ({ programName }) =>
      (programName ? `${programName}: you` : 'You') +
      ' are unsubscribed and will receive no more messages. Reply START to opt back in.',
    'opt-in': ({ programName }) =>
      (programName ? `${programName}: you` : 'You') +
      ' are subscribed again. Reply STOP to opt out, HELP for help.',
    help: ({ programName, contact }) =>
      (programName ? `${programName}: automated` : 'Automated') +
      ' messages. Reply STOP to opt out.' +
      (contact ? ` Contact: ${contact}.` : '') +
      ' Msg&data rates may apply.',
  },
};
