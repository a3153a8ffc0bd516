import { type BotEvent, defineBot, endConversation, reply } from 'replyflow';
import { assign, setup } from 'xstate';
import { z } from 'zod';

interface Input {
  input: { patient?: string; at?: string };
}

/**
 * Appointment confirmation: started for a phone with `{ patient, at }` (a campaign, the dev
 * phone), asks to confirm, and handles YES / NO / anything else.
 */
export default defineBot({
  id: 'appointment',
  triggers: { keywords: ['RDV'] },
  // What a booking system gives POST /admin/conversations (checked before anything starts).
  input: z.object({
    patient: z.string().min(1).max(60).optional(),
    at: z.string().min(1, { error: 'is required: when the appointment is, as the SMS says it' }),
  }),
  exampleInput: { patient: 'Ana', at: 'Tuesday 2 December at 10:30' },
  machine: setup({
    types: {
      context: {} as { patient: string; at: string; tries: number },
      events: {} as BotEvent,
      input: {} as Input,
    },
    guards: {
      saidYes: ({ event }) =>
        event.type === 'sms.reply' && /^(yes|y|oui|ok)\b/i.test(event.body.trim()),
      saidNo: ({ event }) => event.type === 'sms.reply' && /^(no|n|non)\b/i.test(event.body.trim()),
      gaveUp: ({ context }) => context.tries >= 2,
    },
  }).createMachine({
    id: 'appointment',
    context: ({ input }) => ({
      patient: input.input.patient ?? 'there',
      at: input.input.at ?? 'tomorrow at 10:00',
      tries: 0,
    }),
    initial: 'asking',
    states: {
      asking: {
        entry: reply(
          ({ context }) =>
            `Hello ${context.patient}, your appointment is ${context.at}. Reply YES to confirm or NO to cancel.`,
        ),
        on: {
          'sms.reply': [
            { guard: 'saidYes', target: 'confirmed' },
            { guard: 'saidNo', target: 'cancelled' },
            { guard: 'gaveUp', target: 'unclear' },
            {
              actions: [
                assign({ tries: ({ context }) => context.tries + 1 }),
                reply('Sorry, please reply YES or NO.'),
              ],
            },
          ],
        },
      },
      confirmed: { entry: [reply('Thank you, see you then.'), endConversation('confirmed')] },
      cancelled: {
        entry: [
          reply('Your appointment is cancelled. Call us to book again.'),
          endConversation('cancelled'),
        ],
      },
      unclear: { entry: [reply('We will call you to confirm.'), endConversation('unclear')] },
    },
  }),
});
