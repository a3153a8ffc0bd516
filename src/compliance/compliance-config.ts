import { z } from 'zod';
import { parseDuration } from '../bot/parse-duration.ts';
import { type ComplianceKind, complianceKinds } from './compliance-kind.ts';
import { defaultKeywords, unremovableWords } from './default-keywords.ts';
import { defaultTexts } from './default-texts.ts';
import { normalizeComplianceText } from './normalize-compliance-text.ts';
import { quietHoursConfigSchema } from './quiet-hours.ts';

const language = z.string().regex(/^[a-z]{2,3}$/, {
  error: 'must be a language code such as fr or en',
});
const word = z.string().refine((text) => normalizeComplianceText(text) !== '', {
  error: 'must have letters or digits',
});
const kind = z.enum(complianceKinds as [ComplianceKind, ...ComplianceKind[]]);

/**
 * A location's `compliance` section: its keywords, texts and language, quiet hours, loop guard
 * and contacts group. Every field is optional; `docs/compliance.md` shows a full example.
 */
export const complianceConfigSchema = z
  .strictObject({
    /** The location's language: confirmations fall back to it. `fr` by default. */
    language: language.optional(),
    /** The program people know the messages by; the default texts name it (HELP above all). */
    programName: z.string().trim().min(1).max(40).optional(),
    /** How to reach a person (phone, e-mail or site), given in the default HELP text. */
    contact: z.string().trim().min(1).max(80).optional(),
    keywords: z
      .strictObject({
        /** Words added to a list, each with the language its confirmation is written in. */
        add: z.array(z.strictObject({ word, kind, language })).optional(),
        /** Words taken off the default lists; STOP, ARRET and HELP cannot be. */
        remove: z.array(word).optional(),
      })
      .optional(),
    /** Texts per kind and language, replacing the defaults; `{program}` and `{contact}` are filled in. */
    texts: z.partialRecord(kind, z.record(language, z.string().trim().min(1).max(1600))).optional(),
    /** Hold what the bot starts on its own (conversation starts, timers) in these hours. */
    quietHours: quietHoursConfigSchema.optional(),
    /** At most `max` messages to one phone per `window` (a duration); default 10 per 1m. */
    loopGuard: z
      .strictObject({
        max: z.number().int().min(1).optional(),
        window: z
          .string()
          .refine((text) => (parseDuration(text) ?? 0) > 0, {
            error: 'must be a duration such as 1m, 30s or 1h',
          })
          .optional(),
      })
      .optional(),
    /** Contacts group updated with `contactSubscribed: false` when a phone opts out. */
    group: z.number().int().positive().optional(),
  })
  .superRefine((config, ctx) => {
    checkKeywords(config, ctx);
    checkTexts(config, ctx);
  });

export type ComplianceConfig = z.input<typeof complianceConfigSchema>;
type Checked = z.output<typeof complianceConfigSchema>;
type Context = z.RefinementCtx;

function checkKeywords(config: Checked, ctx: Context): void {
  const kinds = new Map(defaultKeywords.map((entry) => [entry.word, entry.kind]));
  const added = config.keywords?.add ?? [];
  for (const [index, text] of (config.keywords?.remove ?? []).entries()) {
    const normalized = normalizeComplianceText(text);
    if (unremovableWords.has(normalized)) {
      ctx.addIssue({
        code: 'custom',
        path: ['keywords', 'remove', index],
        message: `'${text}' cannot be removed: STOP, ARRET and HELP must always work`,
      });
    } else if (
      !kinds.has(normalized) &&
      !added.some((a) => normalizeComplianceText(a.word) === normalized)
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['keywords', 'remove', index],
        message: `'${text}' is not a compliance keyword (the lists are in docs/compliance.md)`,
      });
    }
    kinds.delete(normalized);
  }
  for (const [index, entry] of added.entries()) {
    const normalized = normalizeComplianceText(entry.word);
    const existing = kinds.get(normalized);
    if (existing !== undefined && existing !== entry.kind) {
      ctx.addIssue({
        code: 'custom',
        path: ['keywords', 'add', index, 'word'],
        message: `'${entry.word}' is already an ${existing} word: remove it first to make it ${entry.kind}`,
      });
    }
    kinds.set(normalized, entry.kind);
  }
}

function checkTexts(config: Checked, ctx: Context): void {
  const own = config.language ?? 'fr';
  if (defaultTexts[own] === undefined) {
    for (const kind of complianceKinds) {
      if (config.texts?.[kind]?.[own] === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['texts', kind, own],
          message: `is needed: replyflow has no default ${kind} text in '${own}' (it has ${Object.keys(defaultTexts).join(', ')})`,
        });
      }
    }
  }
  for (const kind of complianceKinds) {
    for (const [lang, text] of Object.entries(config.texts?.[kind] ?? {})) {
      for (const [placeholder, field] of [
        ['{program}', 'programName'],
        ['{contact}', 'contact'],
      ] as const) {
        if (text?.includes(placeholder) && config[field] === undefined) {
          ctx.addIssue({
            code: 'custom',
            path: ['texts', kind, lang],
            message: `uses ${placeholder} but compliance.${field} is not set`,
          });
        }
      }
    }
  }
}
