import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import echo from '../../fixtures/bots/echo-bot.ts';
import { type ReplyLoop, startReplyLoop } from '../../support/reply-loop.ts';

describe.each(['redis', 'cluster', 'memory'] as const)(
  'the reply loop on the %s store',
  (store) => {
    let loop: ReplyLoop;
    beforeAll(async () => {
      loop = await startReplyLoop({
        store,
        registry: createBotRegistry([{ bot: echo, file: 'echo.ts' }]),
      });
    });
    afterAll(() => loop.close());

    it('answers a reply to the short code through the bot, and continues from the persisted state', async () => {
      const phone = { redis: '33612345001', cluster: '33612345003', memory: '33612345002' }[store];
      await loop.start(phone, 'echo');
      expect(await loop.waitForBodies(phone, 1)).toEqual(['Echo bot here. Say anything.']);

      await loop.reply(phone, 'hello');
      expect(await loop.waitForBodies(phone, 2)).toEqual([
        'Echo bot here. Say anything.',
        '#1: hello',
      ]);

      await loop.reply(phone, 'world');
      expect((await loop.waitForBodies(phone, 3))[2]).toBe('#2: world');

      const res = await fetch(`${loop.emulator.url}/_emulator/messages?to=${phone}`);
      const sent = (await res.json()) as Array<{ from: string; location: string }>;
      expect(sent).toHaveLength(3);
      expect(sent.every((m) => m.from === '' && m.location === 'paris')).toBe(true);
      const record = await loop.app.store.getConversation({ location: 'paris', phone });
      expect(record).toMatchObject({ botId: 'echo', status: 'active' });
    });
  },
);
