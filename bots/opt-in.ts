import {
  type BotEvent,
  defineBot,
  endConversation,
  failedWith,
  matchNo,
  record,
  reply,
  updateContact,
} from 'replyflow';
import { assign, setup } from 'xstate';

/**
 * The group new subscribers join (`GET /groups` lists yours). Set it here when you copy this
 * file, or give `{ "group": 12 }` when you start the bot through the API.
 */
const DEFAULT_GROUP = 1;

interface Context {
  lang: 'fr' | 'en';
  group: number;
  firstName?: string;
}

interface Input {
  keyword?: string;
  lang?: 'fr' | 'en';
  group?: number;
}

const fr = {
  ask: 'Bienvenue ! Pour finir votre inscription, quel est votre prénom ? (ou PASSER)',
  askAgain: 'Juste votre prénom, svp (ou PASSER).',
  done: (c: Context) =>
    `${c.firstName ? `Merci ${c.firstName}, votre` : 'Merci, votre'} inscription est confirmée. Envoyez STOP pour vous désinscrire.`,
};
const en: typeof fr = {
  ask: 'Welcome! To finish signing up, what is your first name? (or SKIP)',
  askAgain: 'Just your first name, please (or SKIP).',
  done: (c) =>
    `${c.firstName ? `Thank you ${c.firstName}, you` : 'Thank you, you'} are subscribed. Text STOP to unsubscribe.`,
};
const texts = (context: Context) => (context.lang === 'en' ? en : fr);

/** The keywords in English; the others start the bot in French. */
const ENGLISH_KEYWORDS = ['JOIN'];

/** SKIP / PASSER, or a no: the person keeps the first name to themselves. */
const saidSkip = ({ event }: { event: BotEvent }) =>
  event.type === 'sms.reply' && (/^\W*(skip|passer?)\W*$/i.test(event.body) || matchNo(event.body));

/** A first name, as written: one to three words of letters, at most 40 characters. */
function firstNameOf(event: BotEvent): string | undefined {
  if (event.type !== 'sms.reply') return undefined;
  const text = event.body
    .trim()
    .replace(/\s+/g, ' ')
    .replace(/[.!]+$/, '');
  const name = text.replace(/^(je m'?appelle|c'?est|moi c'?est|my name is|i am|i'm|it's)\s+/i, '');
  return /^\p{L}[\p{L}' -]{0,39}$/u.test(name) && name.split(' ').length <= 3 ? name : undefined;
}

/**
 * Keyword opt-in: JOIN (English) or INSCRIPTION (French) subscribes the number. It asks for a
 * first name (optional: SKIP / PASSER or a no), confirms, and adds the contact to the group with
 * `contactSubscribed: true`. STOP, at any point, opts the phone out (the compliance step).
 */
export default defineBot({
  id: 'opt-in',
  triggers: { keywords: ['JOIN', 'INSCRIPTION'] },
  // Without an answer for a day, the person is subscribed without a first name.
  expiresAfter: '24h',
  machine: setup({
    types: { context: {} as Context, events: {} as BotEvent, input: {} as { input: Input } },
    actions: {
      subscribe: updateContact(({ context }: { context: Context }) => ({
        group: context.group,
        fields: {
          contactSubscribed: true,
          ...(context.firstName ? { contactFirstName: context.firstName } : {}),
        },
      })),
    },
  }).createMachine({
    id: 'opt-in',
    context: ({ input: { input } }) => ({
      lang:
        input?.lang === 'en' || ENGLISH_KEYWORDS.includes(input?.keyword?.toUpperCase() ?? '')
          ? 'en'
          : 'fr',
      group: input?.group ?? DEFAULT_GROUP,
    }),
    initial: 'starting',
    states: {
      starting: { on: { 'conversation.start': 'askingName' } },
      askingName: {
        entry: reply(({ context }) => texts(context).ask),
        on: {
          'sms.reply': [
            { guard: saidSkip, target: 'subscribed' },
            {
              guard: ({ event }) => firstNameOf(event) !== undefined,
              target: 'subscribed',
              actions: assign({ firstName: ({ event }) => firstNameOf(event) }),
            },
            { actions: reply(({ context }) => texts(context).askAgain) },
          ],
          'conversation.expire': {
            actions: [
              'subscribe',
              record({ subscribed: true, firstName: '' }),
              reply(({ context }) => texts(context).done(context)),
            ],
          },
        },
      },
      subscribed: {
        type: 'final',
        entry: [
          'subscribe',
          record(({ context }) => ({ subscribed: true, firstName: context.firstName ?? '' })),
          reply(({ context }) => texts(context).done(context)),
        ],
      },
    },
    on: {
      'sms.status': {
        guard: failedWith(),
        actions: [
          record(({ event }) => ({
            subscribed: false,
            reason: event.type === 'sms.status' ? event.statusReason : '',
          })),
          endConversation('delivery_failed'),
        ],
      },
    },
  }),
});
