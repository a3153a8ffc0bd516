import {
  type BotEvent,
  defineBot,
  endConversation,
  failedWith,
  matchDate,
  notify,
  record,
  reply,
  saidNo,
  saidYes,
  z,
} from 'replyflow';
import { assign, setup } from 'xstate';

/** The time zone of `at` and of the dates people propose, unless the start gives `timeZone`. */
const DEFAULT_TIME_ZONE = 'Europe/Paris';
const HOUR = 3_600_000;

/** What a booking system gives `POST /admin/conversations` (checked before anything starts). */
const input = z.object({
  name: z.string().min(1).max(60),
  at: z.iso.datetime({
    offset: true,
    error: 'must be an ISO date-time such as 2026-12-02T10:30:00+01:00',
  }),
  place: z.string().min(1).max(80),
  lang: z.enum(['fr', 'en']).optional(),
  timeZone: z.string().optional(),
});

interface Context {
  lang: 'fr' | 'en';
  name: string;
  at: string;
  place: string;
  timeZone: string;
  /** When the current question was asked: the delays count from there. */
  since: string;
  reminded: boolean;
  proposed?: string;
}

const fr = {
  ask: (c: Context) =>
    `Bonjour ${c.name}, vous avez rendez-vous ${when(c.at, c)} (${c.place}). Confirmez-vous ? Répondez OUI ou NON.`,
  askAgain:
    "Je n'ai pas compris. Répondez OUI pour confirmer, ou NON pour annuler ou changer de date.",
  confirmed: (c: Context) => `Merci ${c.name}, c'est confirmé : ${when(c.at, c)}, ${c.place}.`,
  choose:
    'Souhaitez-vous annuler ou changer de date ? Répondez ANNULER, ou proposez une date (ex. jeudi 14h).',
  chooseAgain:
    "Je n'ai pas compris. Répondez ANNULER, ou proposez un jour et une heure (ex. jeudi 14h).",
  propose: (c: Context) => `Vous proposez ${when(c.proposed!, c)}. C'est bien cela ? OUI ou NON`,
  proposeAgain: 'Répondez OUI si la date vous convient, ou NON pour en proposer une autre.',
  rescheduled: (c: Context) =>
    `C'est noté, nous vous recontactons pour confirmer ${when(c.proposed!, c)}.`,
  cancelled: (c: Context) =>
    `Votre rendez-vous ${when(c.at, c)} est annulé. Merci de nous avoir prévenus.`,
  remindAsk: (c: Context) =>
    `Rappel : rendez-vous ${when(c.at, c)} (${c.place}). Confirmez-vous ? OUI ou NON`,
  remindChoose: 'Rappel : répondez ANNULER, ou proposez une autre date (ex. jeudi 14h).',
  remindPropose: (c: Context) => `Rappel : ${when(c.proposed!, c)}, c'est bien cela ? OUI ou NON`,
};

const en: typeof fr = {
  ask: (c) =>
    `Hello ${c.name}, you have an appointment ${when(c.at, c)} (${c.place}). Can you confirm? Reply YES or NO.`,
  askAgain:
    'Sorry, I did not understand. Reply YES to confirm, or NO to cancel or change the date.',
  confirmed: (c) => `Thank you ${c.name}, it is confirmed: ${when(c.at, c)}, ${c.place}.`,
  choose:
    'Would you like to cancel or change the date? Reply CANCEL, or suggest a date (e.g. Thursday 2pm).',
  chooseAgain:
    'Sorry, I did not understand. Reply CANCEL, or suggest a day and a time (e.g. Thursday 2pm).',
  propose: (c) => `You suggest ${when(c.proposed!, c)}. Is that right? YES or NO`,
  proposeAgain: 'Reply YES if the date suits you, or NO to suggest another one.',
  rescheduled: (c) => `Noted, we will get back to you to confirm ${when(c.proposed!, c)}.`,
  cancelled: (c) =>
    `Your appointment ${when(c.at, c)} is cancelled. Thank you for letting us know.`,
  remindAsk: (c) =>
    `Reminder: appointment ${when(c.at, c)} (${c.place}). Can you confirm? YES or NO`,
  remindChoose: 'Reminder: reply CANCEL, or suggest another date (e.g. Thursday 2pm).',
  remindPropose: (c) => `Reminder: ${when(c.proposed!, c)}, is that right? YES or NO`,
};

const texts = (context: Context) => (context.lang === 'en' ? en : fr);

/** `mardi 1 décembre à 10h30` / `Tuesday 1 December at 10:30`, in the appointment's time zone. */
function when(iso: string, { lang, timeZone }: Context): string {
  // A start that skipped the input check (the dev phone) may give any text: say it as it is.
  if (Number.isNaN(Date.parse(iso))) return iso;
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      weekday: 'short',
      day: 'numeric',
      month: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(new Date(iso))
      .map((part) => [part.type, part.value]),
  );
  const weekday = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(parts.weekday!);
  const month = Number(parts.month) - 1;
  const [day, hour, minute] = [parts.day, Number(parts.hour), parts.minute];
  if (lang === 'en') {
    const days = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
    const months =
      'January February March April May June July August September October November December';
    return `on ${days[weekday]} ${day} ${months.split(' ')[month]} at ${hour}:${minute}`;
  }
  const days = ['dimanche', 'lundi', 'mardi', 'mercredi', 'jeudi', 'vendredi', 'samedi'];
  // "aout" without its circumflex: a û would send the whole SMS in UCS-2.
  const months =
    'janvier février mars avril mai juin juillet aout septembre octobre novembre décembre';
  return `le ${days[weekday]} ${day} ${months.split(' ')[month]} à ${hour}h${minute === '00' ? '' : minute}`;
}

/** CANCEL / ANNULER (claimed by this bot), or an answer that starts with them. */
const saidCancel = ({ event }: { event: BotEvent }) =>
  event.type === 'sms.reply' && /^\W*(annul|cancel)/i.test(event.body);

/** The date a reply proposes, in the appointment's time zone, with an hour. */
function proposedDate(context: Context, event: BotEvent): Date | undefined {
  if (event.type !== 'sms.reply') return undefined;
  const now = new Date(event.receivedAt);
  const date = matchDate(event.body, { now, timeZone: context.timeZone, requireTime: true });
  return date && date.getTime() > now.getTime() ? date : undefined;
}

/** Each question's delays count from when it was asked. */
const stamp = assign<Context, BotEvent, undefined, BotEvent, never>({
  since: ({ context, event }) => ('receivedAt' in event ? event.receivedAt : context.since),
});

/**
 * Appointment confirmation, started by a booking system with `{ name, at, place }` (`at` an ISO
 * date-time; optional `lang: 'en'`, `timeZone`). YES confirms; NO offers to cancel or to propose
 * another date, which it reads back for confirmation. One reminder after 24 h of silence, or 2 h
 * before the appointment if that comes sooner; the conversation expires at the appointment time.
 * The outcome is recorded (`replyflow results appointment`) and sent to the systems that asked
 * as `appointment.confirmed`, `appointment.cancelled` or `appointment.rescheduled` (with the new
 * time) when the location has `events` subscriptions (docs/integrations.md).
 */
export default defineBot({
  id: 'appointment',
  input,
  // The dev phone prefills its start form with this: an appointment the day after tomorrow by
  // the dev clock when the form is shown, so it stays ahead of a clock moved forward.
  exampleInput: (now) => ({
    name: 'Ana',
    at: new Date(Math.ceil(now.getTime() / HOUR) * HOUR + 48 * HOUR).toISOString(),
    place: '12 rue de la Paix',
  }),
  // CANCEL / ANNULER reach this bot while it talks with the phone (compliance would otherwise
  // take them); STOP still ends the conversation.
  claims: ['CANCEL', 'ANNULER'],
  // The appointment time ends it (below); the engine's expiry is only a backstop, for an
  // appointment more than a month away with no answer.
  expiresAfter: '30d',
  machine: setup({
    types: {
      context: {} as Context,
      events: {} as BotEvent,
      input: {} as { input: z.infer<typeof input> },
    },
    delays: {
      /** 24 h of silence, or 2 h before the appointment if that comes sooner. */
      reminder: ({ context }) => {
        const beforeAppointment = Date.parse(context.at) - 2 * HOUR - Date.parse(context.since);
        return beforeAppointment > 0 ? Math.min(24 * HOUR, beforeAppointment) : 24 * HOUR;
      },
      appointmentTime: ({ context }) =>
        Math.max(0, Date.parse(context.at) - Date.parse(context.since)) || 7 * 24 * HOUR,
    },
  }).createMachine({
    id: 'appointment',
    context: ({ input: { input } }) => ({
      lang: input?.lang === 'en' ? 'en' : 'fr',
      name: input?.name ?? '',
      at: input?.at ?? '',
      place: input?.place ?? '',
      timeZone: input?.timeZone ?? DEFAULT_TIME_ZONE,
      since: new Date(0).toISOString(),
      reminded: false,
    }),
    initial: 'starting',
    states: {
      starting: {
        on: {
          'conversation.start': [
            {
              // Started after the appointment time: nothing to ask.
              guard: ({ context, event }) =>
                event.type === 'conversation.start' &&
                Date.parse(context.at) <= Date.parse(event.receivedAt),
              target: 'ended',
              actions: [record({ outcome: 'too_late' }), endConversation('too_late')],
            },
            { target: 'open', actions: stamp },
          ],
        },
      },
      open: {
        initial: 'asking',
        after: {
          appointmentTime: {
            target: 'ended',
            actions: [record({ outcome: 'no_answer' }), endConversation('expired')],
          },
        },
        on: {
          'conversation.expire': { actions: record({ outcome: 'no_answer' }) },
          'sms.status': {
            guard: failedWith(),
            target: 'ended',
            actions: [
              record(({ event }) => ({
                outcome: 'delivery_failed',
                reason: event.type === 'sms.status' ? event.statusReason : '',
              })),
              endConversation('delivery_failed'),
            ],
          },
        },
        states: {
          asking: {
            entry: [stamp, reply(({ context }) => texts(context).ask(context))],
            after: {
              reminder: {
                guard: ({ context }) => !context.reminded,
                actions: [
                  reply(({ context }) => texts(context).remindAsk(context)),
                  assign({ reminded: true }),
                ],
              },
            },
            on: {
              'sms.reply': [
                { guard: saidCancel, target: '#appointment.cancelled' },
                { guard: saidYes, target: '#appointment.confirmed' },
                { guard: saidNo, target: 'choosing' },
                { actions: reply(({ context }) => texts(context).askAgain) },
              ],
            },
          },
          choosing: {
            entry: [stamp, reply(({ context }) => texts(context).choose)],
            after: {
              reminder: {
                guard: ({ context }) => !context.reminded,
                actions: [
                  reply(({ context }) => texts(context).remindChoose),
                  assign({ reminded: true }),
                ],
              },
            },
            on: {
              'sms.reply': [
                { guard: saidCancel, target: '#appointment.cancelled' },
                {
                  guard: ({ context, event }) => proposedDate(context, event) !== undefined,
                  target: 'proposed',
                  actions: assign({
                    proposed: ({ context, event }) => proposedDate(context, event)?.toISOString(),
                  }),
                },
                { actions: reply(({ context }) => texts(context).chooseAgain) },
              ],
            },
          },
          proposed: {
            entry: [stamp, reply(({ context }) => texts(context).propose(context))],
            after: {
              reminder: {
                guard: ({ context }) => !context.reminded,
                actions: [
                  reply(({ context }) => texts(context).remindPropose(context)),
                  assign({ reminded: true }),
                ],
              },
            },
            on: {
              'sms.reply': [
                { guard: saidCancel, target: '#appointment.cancelled' },
                { guard: saidYes, target: '#appointment.rescheduled' },
                { guard: saidNo, target: 'choosing' },
                { actions: reply(({ context }) => texts(context).proposeAgain) },
              ],
            },
          },
        },
      },
      confirmed: {
        entry: [
          reply(({ context }) => texts(context).confirmed(context)),
          record({ outcome: 'confirmed' }),
          // The booking system hears it (the location's `events` subscriptions).
          notify('appointment.confirmed', ({ context }) => ({ at: context.at })),
          endConversation('confirmed'),
        ],
      },
      cancelled: {
        entry: [
          reply(({ context }) => texts(context).cancelled(context)),
          record({ outcome: 'cancelled' }),
          notify('appointment.cancelled', ({ context }) => ({ at: context.at })),
          endConversation('cancelled'),
        ],
      },
      rescheduled: {
        entry: [
          reply(({ context }) => texts(context).rescheduled(context)),
          record(({ context }) => ({
            outcome: 'reschedule_requested',
            proposedAt: context.proposed,
          })),
          // The new time the person agreed to, and the one it replaces.
          notify('appointment.rescheduled', ({ context }) => ({
            previousAt: context.at,
            at: context.proposed,
          })),
          endConversation('reschedule_requested'),
        ],
      },
      ended: { type: 'final' },
    },
  }),
});
