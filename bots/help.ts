import { defineBot, reply } from 'replyflow';
import { setup } from 'xstate';

/** The fallback: answers any message no conversation or keyword claims. */
export default defineBot({
  id: 'help',
  fallback: true,
  machine: setup({}).createMachine({
    id: 'help',
    type: 'final',
    entry: reply('Hi! Reply RDV to manage your appointment or SURVEY to give your opinion.'),
  }),
});
