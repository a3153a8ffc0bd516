import type { ComplianceKind } from './compliance-kind.ts';

/** A compliance keyword and the languages it is a word of (the first is its own language). */
export interface KeywordEntry {
  readonly word: string;
  readonly kind: ComplianceKind;
  readonly languages: readonly string[];
}

/**
 * The default lists. STOP, START and INFO are used in French-speaking countries too (the French
 * "STOP SMS" mention, and the opt-out confirmation that says "répondez START"), so they are
 * words of both languages: they answer in the location's language when it is one of them.
 */
export const defaultKeywords: readonly KeywordEntry[] = [
  ...words('opt-out', ['en', 'fr'], ['STOP', 'STOPALL', 'STOP ALL']),
  ...words('opt-out', ['en'], ['UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'OPTOUT', 'OPT OUT']),
  ...words('opt-out', ['en'], ['REVOKE']),
  ...words('opt-out', ['fr'], ['ARRET', 'ARRETER', 'STOP SMS', 'DESABONNER', 'DESINSCRIRE']),
  ...words('opt-in', ['en', 'fr'], ['START']),
  ...words('opt-in', ['en'], ['UNSTOP', 'SUBSCRIBE']),
  ...words('help', ['en'], ['HELP']),
  ...words('help', ['en', 'fr'], ['INFO']),
  ...words('help', ['fr'], ['AIDE']),
];

/** Words a location cannot remove: the law's own opt-out words and the help word. */
export const unremovableWords: ReadonlySet<string> = new Set(['stop', 'arret', 'help']);

/**
 * Words no bot may claim: STOP and ARRET, and the forms that only add to them (STOP ALL,
 * STOP SMS, ARRETER). Whatever a bot is doing, they opt out.
 */
export const unclaimableWords: ReadonlySet<string> = new Set([
  'stop',
  'stopall',
  'stop all',
  'stop sms',
  'arret',
  'arreter',
]);

function words(kind: ComplianceKind, languages: string[], list: string[]): KeywordEntry[] {
  return list.map((word) => ({ word: word.toLowerCase(), kind, languages }));
}
