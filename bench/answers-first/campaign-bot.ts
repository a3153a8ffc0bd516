import { setup } from 'xstate';
import type { BotEvent } from '../../src/bot/bot-events.ts';
import { defineBot } from '../../src/bot/define-bot.ts';
import { reply } from '../../src/bot/reply.ts';

/** The campaign's text: one SMS per start, the bot's own (`botInitiated`). */
export const campaignText = 'Bench campaign: our sale starts today.';

/**
 * A campaign's bot, as the answers-first bench feeds it (`conversation.start` from the store,
 * as a campaign's starts come): one message, then the conversation ends. Loaded by the
 * reply-loop's `sut-process.ts` through BENCH_EXTRA_BOTS.
 */
export default defineBot({
  id: 'bench-campaign',
  machine: setup({ types: { events: {} as BotEvent } }).createMachine({
    type: 'final',
    entry: reply(campaignText),
  }),
});
