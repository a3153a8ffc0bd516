import { assign, setup } from 'xstate';
import type { BotEvent } from '../../src/bot/bot-events.ts';
import { defineBot } from '../../src/bot/define-bot.ts';
import { reply } from '../../src/bot/reply.ts';

/**
 * The bot both variants run: the keyword ECHO starts it, and every reply (the first one too:
 * replyflow gives it as `conversation.start`'s trigger, the naive baseline as an `sms.reply`)
 * is answered with exactly one SMS, `#<turn>: <body>`. One notification in, one `POST /sms`
 * out, so a turn is easy to count. The context stays small (a counter and the last body), so
 * the snapshot's size does not grow with the length of the conversation.
 */
export const echoMachine = setup({
  types: { context: {} as { turns: number; last: string }, events: {} as BotEvent },
}).createMachine({
  id: 'bench-echo',
  context: { turns: 0, last: '' },
  initial: 'listening',
  states: {
    listening: {
      on: {
        'conversation.start': {
          guard: ({ event }) => event.type === 'conversation.start' && event.trigger !== undefined,
          actions: [
            assign({
              turns: ({ context }) => context.turns + 1,
              last: ({ event }) =>
                event.type === 'conversation.start' ? (event.trigger?.body ?? '') : '',
            }),
            reply(({ context }) => `#${context.turns}: ${context.last}`),
          ],
        },
        'sms.reply': {
          actions: [
            assign({
              turns: ({ context }) => context.turns + 1,
              last: ({ event }) => (event.type === 'sms.reply' ? event.body : ''),
            }),
            reply(({ context }) => `#${context.turns}: ${context.last}`),
          ],
        },
      },
    },
  },
});

export const echoBot = defineBot({
  id: 'bench-echo',
  triggers: { keywords: ['ECHO'] },
  machine: echoMachine,
});

/** The turn counter of a persisted snapshot of `echoMachine`. */
export function turnsOf(snapshot: unknown): number | null {
  const turns = (snapshot as { context?: { turns?: unknown } } | null)?.context?.turns;
  return typeof turns === 'number' ? turns : null;
}
