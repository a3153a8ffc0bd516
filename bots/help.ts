import { defineBot, reply } from 'replyflow';
import { setup } from 'xstate';

/**
 * The fallback: answers any message no conversation or keyword claims, naming the keywords of
 * the other reference bots (opt-in.ts, survey.ts). Update the text when you add a keyword.
 */
export default defineBot({
  id: 'help',
  fallback: true,
  machine: setup({}).createMachine({
    id: 'help',
    type: 'final',
    entry: reply(
      'Bonjour ! Envoyez INSCRIPTION pour vous inscrire, AVIS pour donner votre avis. Hi! Text JOIN to subscribe, SURVEY to give your opinion.',
    ),
  }),
});
