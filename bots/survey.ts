import { type BotEvent, defineBot, reply } from 'replyflow';
import { assign, setup } from 'xstate';

/** A two-question satisfaction survey: a score from 1 to 5, then an optional comment. */
export default defineBot({
  id: 'survey',
  triggers: { keywords: ['SURVEY', 'AVIS'] },
  machine: setup({
    types: { context: {} as { score?: number; comment?: string }, events: {} as BotEvent },
    guards: {
      isScore: ({ event }) => event.type === 'sms.reply' && /^[1-5]$/.test(event.body.trim()),
    },
  }).createMachine({
    id: 'survey',
    context: {},
    initial: 'score',
    states: {
      score: {
        entry: reply('How was your visit, from 1 (bad) to 5 (great)?'),
        on: {
          'sms.reply': [
            {
              guard: 'isScore',
              target: 'comment',
              actions: assign({
                score: ({ event }) =>
                  event.type === 'sms.reply' ? Number(event.body.trim()) : undefined,
              }),
            },
            { actions: reply('Please answer with a number from 1 to 5.') },
          ],
        },
      },
      comment: {
        entry: reply('Thanks! Anything to add? (reply SKIP to finish)'),
        on: {
          'sms.reply': {
            target: 'done',
            actions: assign({
              comment: ({ event }) =>
                event.type === 'sms.reply' && !/^skip$/i.test(event.body.trim())
                  ? event.body
                  : undefined,
            }),
          },
        },
      },
      done: { type: 'final', entry: reply('Thank you for your feedback.') },
    },
  }),
});
