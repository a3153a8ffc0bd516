import type { z } from 'zod';
import { parseDuration } from '../bot/parse-duration.ts';
import { ConfigError } from '../errors.ts';
import { type ComplianceConfig, complianceConfigSchema } from './compliance-config.ts';
import type { ComplianceKind } from './compliance-kind.ts';
import { defaultKeywords, type KeywordEntry, unclaimableWords } from './default-keywords.ts';
import { defaultTexts } from './default-texts.ts';
import { normalizeComplianceText } from './normalize-compliance-text.ts';
import { type QuietHours, toQuietHours } from './quiet-hours.ts';

export type { ComplianceKind } from './compliance-kind.ts';
export type { QuietHours } from './quiet-hours.ts';

/** A message that is a compliance keyword. */
export interface ComplianceMatch {
  kind: ComplianceKind;
  /** The keyword, normalised (`stop`, `opt out`, `arret`). */
  keyword: string;
  /** The language to answer in (`fr`, `en`…): the location's when the word is one of its language's, else the word's own. */
  language: string;
}

/** A location's compliance rules, made once from its config. */
export interface CompliancePolicy {
  /**
   * The compliance keyword the whole message is, if any. `claimed`: normalised words an active
   * bot claims; they are not matched, except STOP and ARRET (and their variants that cannot be
   * claimed).
   */
  match(body: string, claimed?: ReadonlySet<string>): ComplianceMatch | undefined;
  /** The confirmation or help text for a kind, in that language (falls back to the location's language). */
  text(kind: ComplianceKind, language?: string): string;
  /** The location's default language, `fr` by default. */
  readonly language: string;
  /** Default none. */
  readonly quietHours: QuietHours | undefined;
  /** Default 10 messages per phone per minute. */
  readonly loopGuard: { max: number; windowMs: number };
  /** Contacts group to update with `contactSubscribed: false` on opt-out. */
  readonly group: number | undefined;
}

/**
 * Checks a location's `compliance` config and makes its policy; throws `ConfigError`, naming
 * each bad field, on bad config. No config: the default lists and texts, in French.
 *
 * @example
 * const policy = createCompliancePolicy({ language: 'fr', programName: 'Salon Lila' });
 * policy.match(' Arrêt! '); // { kind: 'opt-out', keyword: 'arret', language: 'fr' }
 * policy.match('stop by tomorrow'); // undefined
 * policy.text('opt-out', 'en'); // 'Salon Lila: you are unsubscribed and will receive no more messages. Reply START to opt back in.'
 */
export function createCompliancePolicy(config: ComplianceConfig = {}): CompliancePolicy {
  const parsed = complianceConfigSchema.safeParse(config);
  if (!parsed.success) throw complianceConfigError(parsed.error);
  const checked = parsed.data;
  const language = checked.language ?? 'fr';
  const keywords = keywordTable(checked);
  const details = { programName: checked.programName, contact: checked.contact };
  const own = (kind: ComplianceKind, lang: string): string | undefined => {
    const custom = checked.texts?.[kind]?.[lang];
    if (custom !== undefined) {
      return custom
        .replaceAll('{program}', details.programName ?? '')
        .replaceAll('{contact}', details.contact ?? '');
    }
    return defaultTexts[lang]?.[kind](details);
  };
  return {
    language,
    quietHours: checked.quietHours ? toQuietHours(checked.quietHours) : undefined,
    loopGuard: {
      max: checked.loopGuard?.max ?? 10,
      windowMs: parseDuration(checked.loopGuard?.window ?? '1m')!,
    },
    group: checked.group,
    match(body, claimed) {
      const normalized = normalizeComplianceText(body);
      const entry = keywords.get(normalized);
      if (!entry) return undefined;
      if (claimed?.has(normalized) && !unclaimableWords.has(normalized)) return undefined;
      return {
        kind: entry.kind,
        keyword: normalized,
        language: entry.languages.includes(language) ? language : entry.languages[0]!,
      };
    },
    text(kind, lang = language) {
      // The config check guarantees every kind has a text in the location's language.
      return own(kind, lang) ?? own(kind, language)!;
    },
  };
}

/** Normalised word → its entry, after the location's removals and additions. */
function keywordTable(config: z.output<typeof complianceConfigSchema>): Map<string, KeywordEntry> {
  const table = new Map(defaultKeywords.map((entry) => [entry.word, entry]));
  for (const word of config.keywords?.remove ?? []) table.delete(normalizeComplianceText(word));
  for (const { word, kind, language } of config.keywords?.add ?? []) {
    const normalized = normalizeComplianceText(word);
    const known = table.get(normalized);
    const languages = known ? [...new Set([...known.languages, language])] : [language];
    table.set(normalized, { word: normalized, kind, languages });
  }
  return table;
}

function complianceConfigError(error: z.ZodError): ConfigError {
  const lines = error.issues.map(
    (issue) => `compliance${issue.path.map((key) => `.${String(key)}`).join('')} ${issue.message}`,
  );
  return new ConfigError(`invalid compliance configuration:\n  - ${lines.join('\n  - ')}`);
}
