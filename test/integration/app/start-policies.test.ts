import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import { startWithPolicy } from '../../../src/admin/start-with-policy.ts';
import type { LocationConfig } from '../../../src/app/config.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { defineBot } from '../../../src/bot/define-bot.ts';
import { reply } from '../../../src/bot/reply.ts';
import { location, type ReplyLoop, startReplyLoop } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';

const survey = defineBot({
  id: 'survey',
  machine: setup({}).createMachine({
    initial: 'asking',
    states: {
      asking: {
        entry: reply('How was your visit?'),
        on: { 'sms.reply': { target: 'done', actions: reply('Thanks!') } },
      },
      done: { type: 'final' },
    },
  }),
});
const waiting = (id: string, text: string, startPolicy: 'replace' | 'queue') =>
  defineBot({
    id,
    startPolicy,
    machine: setup({}).createMachine({
      initial: 'open',
      states: { open: { entry: reply(text), on: { 'sms.reply': { actions: reply('Noted.') } } } },
    }),
  });
const registry = createBotRegistry([
  { bot: survey, file: 'survey.ts' },
  { bot: waiting('followup', 'Your appointment is tomorrow.', 'queue'), file: 'followup.ts' },
  { bot: waiting('urgent', 'Your appointment moved to 11:00.', 'replace'), file: 'urgent.ts' },
]);

describe("a start's policy toward the phone's active conversation, on Redis with the worker and sender", () => {
  let loop: ReplyLoop;
  beforeAll(async () => {
    loop = await startReplyLoop({ registry });
  });
  afterAll(() => loop?.close());

  it('queue waits for the active conversation to end; replace ends it and starts at once', async () => {
    const deps = {
      store: loop.store,
      registry,
      locations: [{ name: location } as LocationConfig],
      now: Date.now,
      logger: pino({ level: 'silent' }),
    };
    const phone = '33612349001';
    const start = (bot: string) => startWithPolicy(deps, { bot, phone: `+${phone}` });
    expect(await start('survey')).toMatchObject({ status: 202, body: { policy: 'start' } });
    await loop.waitForBodies(phone, 1);

    expect(await start('followup')).toMatchObject({ status: 202, body: { policy: 'queue' } });
    await waitFor(async () => (await loop.store.pendingEvents({ location, phone })).length === 0);
    const active = await loop.store.getConversation({ location, phone });
    expect(active).toMatchObject({ botId: 'survey', status: 'active' });
    expect(active?.queued?.map((event) => event.botId)).toEqual(['followup']);
    expect(await loop.bodiesTo(phone)).toEqual(['How was your visit?']);

    // The survey ends with this reply: its last message, then the queued bot's first.
    await loop.reply(phone, 'great');
    expect(await loop.waitForBodies(phone, 3)).toEqual([
      'How was your visit?',
      'Thanks!',
      'Your appointment is tomorrow.',
    ]);
    expect(await loop.store.getConversation({ location, phone })).toMatchObject({
      botId: 'followup',
      status: 'active',
    });

    expect(await start('urgent')).toMatchObject({ status: 202, body: { policy: 'replace' } });
    expect((await loop.waitForBodies(phone, 4)).at(-1)).toBe('Your appointment moved to 11:00.');
    expect(await loop.store.getConversation({ location, phone })).toMatchObject({
      botId: 'urgent',
      status: 'active',
    });
    // A bot without a policy toward the busy phone: skip, 409.
    expect(await start('survey')).toMatchObject({ status: 409, body: { activeBot: 'urgent' } });
  }, 30_000);
});
