import {
  type BotEvent,
  defineBot,
  endConversation,
  failedWith,
  matchChoice,
  matchNumber,
  parseDuration,
  record,
  reply,
  saidChoice,
  saidNumber,
  updateContact,
} from 'replyflow';
import { assign, setup } from 'xstate';

/** One reminder after this much silence, unless the start gives `remindAfter` ('36h', ms). */
const DEFAULT_REMIND_AFTER = '24h';
/** How often an invalid answer is asked again before the question is skipped. */
const MAX_RETRIES = 2;
/** The recorded value of each choice of the first question, whatever the language. */
const VISIT = ['excellent', 'fine', 'disappointing'] as const;

interface Input {
  keyword?: string;
  lang?: 'fr' | 'en';
  remindAfter?: string | number;
  /** With `scoreColumn` and / or `commentColumn`: the contact group to write the answers to. */
  group?: number;
  /** Id of a DOUBLE custom column for the 0–10 score (`GET /customColumns`). */
  scoreColumn?: number;
  /** Id of a CHAR custom column for the comment. */
  commentColumn?: number;
}

interface Context {
  lang: 'fr' | 'en';
  remindAfterMs: number;
  group?: number;
  scoreColumn?: number;
  commentColumn?: number;
  /** Invalid answers to the current question. */
  tries: number;
  reminded: boolean;
  score?: number;
  comment?: string;
}

const fr = {
  choices: ['Excellente', 'Correcte', 'Décevante'],
  visit:
    "Merci de votre visite ! Comment l'avez-vous trouvée ? 1. Excellente 2. Correcte 3. Décevante",
  visitAgain: 'Répondez 1, 2 ou 3 : 1. Excellente 2. Correcte 3. Décevante',
  score: 'De 0 à 10, recommanderiez-vous notre établissement à un proche ?',
  scoreAgain: 'Répondez par un nombre de 0 à 10.',
  comment: 'Un commentaire pour finir ? Répondez librement, ou PASSER.',
  thanks: 'Merci pour vos réponses, bonne journée !',
  reminder: 'Rappel : il vous reste quelques questions. ',
};
const en: typeof fr = {
  choices: ['Excellent', 'Fine', 'Disappointing'],
  visit: 'Thank you for your visit! How did you find it? 1. Excellent 2. Fine 3. Disappointing',
  visitAgain: 'Reply 1, 2 or 3: 1. Excellent 2. Fine 3. Disappointing',
  score: 'From 0 to 10, would you recommend us to a friend?',
  scoreAgain: 'Reply with a number from 0 to 10.',
  comment: 'Any comment to finish? Reply freely, or SKIP.',
  thanks: 'Thank you for your answers, have a nice day!',
  reminder: 'Reminder: a few questions are left. ',
};
const texts = (context: Context) => (context.lang === 'en' ? en : fr);

/** The keywords in English; the others start the survey in French. */
const ENGLISH_KEYWORDS = ['SURVEY'];
const RANGE = { min: 0, max: 10 };

/** The visit choice in either language (a number, an ordinal, or the text). */
const saidVisit = saidChoice([...fr.choices, ...en.choices]);
const visitOf = (event: BotEvent) =>
  event.type === 'sms.reply'
    ? VISIT[(matchChoice(event.body, [...fr.choices, ...en.choices]) ?? 0) % VISIT.length]
    : undefined;

/**
 * A comment left out: a skip word or a bare no, alone ("PASSER", "non", "No thanks", "rien").
 * A comment that only starts with one ("Non, le service était lent") is a comment, kept.
 */
const SKIP =
  /^[\s\p{P}]*(?:skip|pass(?:er)?|rien|nothing|none|aucun|(?:sans|pas de|no) comm?entaires?|(?:non?|nope)(?:[\s,]+(?:merci|thanks|thank you))?)[\s\p{P}]*$/iu;
const saidSkip = ({ event }: { event: BotEvent }) =>
  event.type === 'sms.reply' && SKIP.test(event.body);

/**
 * A three-question satisfaction survey, started for a list of recipients through the API (or by
 * SURVEY / AVIS): a choice, a 0–10 score, and a free comment. An invalid answer is asked again at
 * most twice, then the question is skipped. One reminder after `remindAfter` of silence (24 h by
 * default); the survey expires after 3 days. Every answer is recorded (`replyflow results
 * survey`); with `group` and `scoreColumn` / `commentColumn`, the score and the comment are also
 * written to the contact's custom columns.
 */
export default defineBot({
  id: 'survey',
  triggers: { keywords: ['SURVEY', 'AVIS'] },
  exampleInput: { lang: 'fr', remindAfter: '24h' },
  machine: setup({
    types: { context: {} as Context, events: {} as BotEvent, input: {} as { input: Input } },
    delays: {
      reminder: ({ context }) => context.remindAfterMs,
      expiry: 3 * 24 * 3_600_000,
    },
    guards: {
      canRetry: ({ context }) => context.tries < MAX_RETRIES,
      writesContact: ({ context }) =>
        context.group !== undefined &&
        ((context.scoreColumn !== undefined && context.score !== undefined) ||
          (context.commentColumn !== undefined && context.comment !== undefined)),
    },
    actions: {
      writeContact: updateContact(({ context }: { context: Context }) => ({
        group: context.group!,
        fields: {
          ...(context.scoreColumn !== undefined && context.score !== undefined
            ? { [String(context.scoreColumn)]: context.score }
            : {}),
          ...(context.commentColumn !== undefined && context.comment !== undefined
            ? { [String(context.commentColumn)]: context.comment }
            : {}),
        },
      })),
    },
  }).createMachine({
    id: 'survey',
    context: ({ input: { input } }) => ({
      lang:
        input?.lang === 'en' || ENGLISH_KEYWORDS.includes(input?.keyword?.toUpperCase() ?? '')
          ? 'en'
          : 'fr',
      remindAfterMs:
        (typeof input?.remindAfter === 'number'
          ? input.remindAfter
          : parseDuration(input?.remindAfter ?? DEFAULT_REMIND_AFTER)) ??
        parseDuration(DEFAULT_REMIND_AFTER)!,
      group: input?.group,
      scoreColumn: input?.scoreColumn,
      commentColumn: input?.commentColumn,
      tries: 0,
      reminded: false,
    }),
    initial: 'starting',
    states: {
      starting: { on: { 'conversation.start': 'answering' } },
      answering: {
        initial: 'visit',
        after: {
          expiry: {
            target: 'expired',
            actions: [record({ completed: false }), endConversation('expired')],
          },
        },
        on: {
          'sms.status': {
            guard: failedWith(),
            actions: [
              record(({ event }) => ({
                completed: false,
                reason: event.type === 'sms.status' ? event.statusReason : '',
              })),
              endConversation('delivery_failed'),
            ],
          },
        },
        states: {
          visit: {
            entry: [assign({ tries: 0 }), reply(({ context }) => texts(context).visit)],
            after: {
              reminder: {
                guard: ({ context }) => !context.reminded,
                actions: [
                  assign({ reminded: true }),
                  reply(({ context }) => texts(context).reminder + texts(context).visit),
                ],
              },
            },
            on: {
              'sms.reply': [
                {
                  guard: saidVisit,
                  target: 'score',
                  actions: record(({ event }) => ({ visit: visitOf(event) })),
                },
                {
                  guard: 'canRetry',
                  actions: [
                    assign({ tries: ({ context }) => context.tries + 1 }),
                    reply(({ context }) => texts(context).visitAgain),
                  ],
                },
                { target: 'score' },
              ],
            },
          },
          score: {
            entry: [assign({ tries: 0 }), reply(({ context }) => texts(context).score)],
            after: {
              reminder: {
                guard: ({ context }) => !context.reminded,
                actions: [
                  assign({ reminded: true }),
                  reply(({ context }) => texts(context).reminder + texts(context).score),
                ],
              },
            },
            on: {
              'sms.reply': [
                {
                  guard: saidNumber(RANGE),
                  target: 'comment',
                  actions: [
                    assign({
                      score: ({ event }) =>
                        event.type === 'sms.reply' ? matchNumber(event.body, RANGE) : undefined,
                    }),
                    record(({ context }) => ({ score: context.score })),
                  ],
                },
                {
                  guard: 'canRetry',
                  actions: [
                    assign({ tries: ({ context }) => context.tries + 1 }),
                    reply(({ context }) => texts(context).scoreAgain),
                  ],
                },
                { target: 'comment' },
              ],
            },
          },
          comment: {
            entry: reply(({ context }) => texts(context).comment),
            after: {
              reminder: {
                guard: ({ context }) => !context.reminded,
                actions: [
                  assign({ reminded: true }),
                  reply(({ context }) => texts(context).reminder + texts(context).comment),
                ],
              },
            },
            on: {
              'sms.reply': [
                { guard: saidSkip, target: '#survey.saving' },
                {
                  target: '#survey.saving',
                  actions: [
                    assign({
                      comment: ({ event }) =>
                        event.type === 'sms.reply' ? event.body.trim().slice(0, 500) : undefined,
                    }),
                    record(({ context }) => ({ comment: context.comment })),
                  ],
                },
              ],
            },
          },
        },
      },
      saving: {
        entry: [
          record({ completed: true }),
          reply(({ context }) => texts(context).thanks),
          endConversation('completed'),
        ],
        always: [
          { guard: 'writesContact', target: 'done', actions: 'writeContact' },
          { target: 'done' },
        ],
      },
      expired: {
        always: [
          { guard: 'writesContact', target: 'done', actions: 'writeContact' },
          { target: 'done' },
        ],
      },
      done: { type: 'final' },
    },
  }),
});
