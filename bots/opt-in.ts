import {
  type BotEvent,
  type BotInput,
  defineBot,
  durations,
  endConversation,
  failedWith,
  matchNo,
  record,
  reply,
  updateContact,
} from 'replyflow';
import { assign, setup } from 'xstate';

interface Context {
  lang: 'fr' | 'en';
  /** The contacts group to add the subscriber to: the start input's, else the location's. */
  group?: number;
  firstName?: string;
}

interface Input {
  keyword?: string;
  lang?: 'fr' | 'en';
  /** A group of `GET /groups`; without it, the location's (`compliance.group` in its config). */
  group?: number;
}

const fr = {
  ask: 'Bienvenue ! Pour finir votre inscription, quel est votre prénom ? (ou PASSER)',
  askAgain: 'Juste votre prénom, svp (ou PASSER).',
  done: (c: Context) =>
    `${c.firstName ? `Merci ${c.firstName}, votre` : 'Merci, votre'} inscription est confirmée. Envoyez STOP pour vous désinscrire.`,
  failed:
    "Désolé, votre inscription n'a pas pu être enregistrée. Réessayez plus tard en envoyant INSCRIPTION.",
};
const en: typeof fr = {
  ask: 'Welcome! To finish signing up, what is your first name? (or SKIP)',
  askAgain: 'Just your first name, please (or SKIP).',
  done: (c) =>
    `${c.firstName ? `Thank you ${c.firstName}, you` : 'Thank you, you'} are subscribed. Text STOP to unsubscribe.`,
  failed: 'Sorry, we could not sign you up. Please try again later by texting JOIN.',
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
 * first name (optional: SKIP / PASSER or a no; none after a day), adds the contact to the group
 * with `contactSubscribed: true`, and says "subscribed" only once the service has taken it
 * (`contact.updated`); if it cannot (`contact.failed`), it says so and records why. The group is
 * the start input's `group`, else the location's contacts group (`compliance.group`); with none,
 * the subscription is recorded only. STOP, at any point, opts the phone out (the compliance step).
 */
export default defineBot({
  id: 'opt-in',
  triggers: { keywords: ['JOIN', 'INSCRIPTION'] },
  // Time to answer (a day) and for the contact update to go through.
  expiresAfter: '2d',
  machine: setup({
    types: {
      context: {} as Context,
      events: {} as BotEvent,
      input: {} as BotInput<Input | undefined>,
    },
    actions: {
      subscribe: updateContact(({ context }: { context: Context }) => ({
        group: context.group!,
        fields: {
          contactSubscribed: true,
          ...(context.firstName ? { contactFirstName: context.firstName } : {}),
        },
      })),
    },
    guards: {
      hasGroup: ({ context }) => context.group !== undefined,
    },
    delays: durations('24h'),
  }).createMachine({
    id: 'opt-in',
    context: ({ input }) => ({
      lang:
        input.input?.lang === 'en' ||
        ENGLISH_KEYWORDS.includes(input.input?.keyword?.toUpperCase() ?? '')
          ? 'en'
          : 'fr',
      group: input.input?.group ?? input.contactGroup,
    }),
    initial: 'starting',
    states: {
      starting: { on: { 'conversation.start': 'askingName' } },
      askingName: {
        entry: reply(({ context }) => texts(context).ask),
        // Without an answer for a day, the person is subscribed without a first name.
        after: { '24h': 'saving' },
        on: {
          'sms.reply': [
            { guard: saidSkip, target: 'saving' },
            {
              guard: ({ event }) => firstNameOf(event) !== undefined,
              target: 'saving',
              actions: assign({ firstName: ({ event }) => firstNameOf(event) }),
            },
            { actions: reply(({ context }) => texts(context).askAgain) },
          ],
        },
      },
      // With a group, the contact is written first; without, the subscription is recorded only.
      saving: { always: [{ guard: 'hasGroup', target: 'subscribing' }, { target: 'subscribed' }] },
      subscribing: {
        entry: 'subscribe',
        on: {
          'contact.updated': 'subscribed',
          'contact.failed': 'notSubscribed',
        },
      },
      subscribed: {
        type: 'final',
        entry: [
          record(({ context }) => ({
            subscribed: true,
            firstName: context.firstName ?? '',
            ...(context.group === undefined ? {} : { group: context.group }),
          })),
          reply(({ context }) => texts(context).done(context)),
        ],
      },
      notSubscribed: {
        type: 'final',
        entry: [
          record(({ event }) => ({
            subscribed: false,
            reason: event.type === 'contact.failed' ? event.reason : '',
          })),
          reply(({ context }) => texts(context).failed),
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
