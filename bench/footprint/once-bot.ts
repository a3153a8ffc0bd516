import { setup } from 'xstate';
import type { BotEvent } from '../../src/bot/bot-events.ts';
import { defineBot } from '../../src/bot/define-bot.ts';
import { reply } from '../../src/bot/reply.ts';

/**
 * The footprint bench's ended conversations: the keyword ONCE starts it, it answers the
 * triggering message with one SMS and reaches its final state in the same step, so the
 * conversation ends (what is left of it in Redis is what an ended conversation costs).
 */
export const onceMachine = setup({ types: { events: {} as BotEvent } }).createMachine({
  id: 'bench-once',
  initial: 'answering',
  states: {
    answering: {
      on: {
        'conversation.start': {
          target: 'done',
          actions: reply(({ event }) =>
            event.type === 'conversation.start' ? `Done: ${event.trigger?.body ?? ''}` : 'Done',
          ),
        },
      },
    },
    done: { type: 'final' },
  },
});

/** The bot module the SUT loads (BENCH_EXTRA_BOTS), as `replyflow start` loads a bots folder. */
export default defineBot({
  id: 'bench-once',
  triggers: { keywords: ['ONCE'] },
  machine: onceMachine,
});
