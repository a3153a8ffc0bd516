import { assign, setup } from 'xstate';
import type { BotEvent } from '../../../src/bot/bot-events.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { defineBot } from '../../../src/bot/define-bot.ts';
import { reply } from '../../../src/bot/reply.ts';

export const question = 'Pick a number from 1 to 5.';
export const invalid = 'Please answer with a number from 1 to 5.';
export const reminderText = 'Reminder: pick a number from 1 to 5.';
export const fallbackText = 'Text QUIZ to play.';

/**
 * A one-question quiz, started by the API or by QUIZ: asks, reminds after an hour of silence,
 * thanks for a number (and ends) and asks again otherwise.
 * CANCEL is its own word while it runs (a claim), so it reaches the bot.
 */
export const quiz = defineBot({
  id: 'quiz',
  triggers: { keywords: ['QUIZ'] },
  claims: ['CANCEL'],
  machine: setup({
    types: { context: {} as { picked?: string; heard: string[] }, events: {} as BotEvent },
    guards: {
      isNumber: ({ event }) => event.type === 'sms.reply' && /^[1-5]$/.test(event.body.trim()),
      isCancel: ({ event }) => event.type === 'sms.reply' && /^cancel$/i.test(event.body.trim()),
    },
  }).createMachine({
    id: 'quiz',
    context: { heard: [] },
    initial: 'asking',
    states: {
      asking: {
        entry: reply(question),
        after: { 3600000: { actions: reply(reminderText) } },
        on: {
          'sms.reply': [
            { guard: 'isCancel', target: 'answered', actions: reply('Quiz cancelled.') },
            {
              guard: 'isNumber',
              target: 'answered',
              actions: [
                assign({ picked: ({ event }) => (event.type === 'sms.reply' ? event.body : '') }),
                reply(
                  ({ event }) =>
                    `Thanks, you picked ${event.type === 'sms.reply' ? event.body : ''}.`,
                ),
              ],
            },
            {
              actions: [
                assign({
                  heard: ({ context, event }) =>
                    event.type === 'sms.reply' ? [...context.heard, event.body] : context.heard,
                }),
                reply(invalid),
              ],
            },
          ],
        },
      },
      answered: { type: 'final' },
    },
  }),
});

/** Answers every message with what it heard: the loop guard's test bot. */
export const parrot = defineBot({
  id: 'parrot',
  triggers: { keywords: ['PARROT'] },
  machine: setup({ types: { events: {} as BotEvent } }).createMachine({
    on: {
      'sms.reply': {
        actions: reply(({ event }) => `heard: ${event.type === 'sms.reply' ? event.body : ''}`),
      },
    },
  }),
});

/** The fallback: answers messages nothing else takes. */
export const fallback = defineBot({
  id: 'fallback',
  fallback: true,
  machine: setup({}).createMachine({ type: 'final', entry: reply(fallbackText) }),
});

export const registry = createBotRegistry([
  { bot: quiz, file: 'quiz.ts' },
  { bot: parrot, file: 'parrot.ts' },
  { bot: fallback, file: 'fallback.ts' },
]);
