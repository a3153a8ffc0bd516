import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { defineBot } from '../../../src/bot/define-bot.ts';
import { record } from '../../../src/bot/record.ts';
import { reply } from '../../../src/bot/reply.ts';
import type { Transcript } from '../../../src/store/transcript.ts';
import {
  location,
  type ReplyLoop,
  type StoreKind,
  startReplyLoop,
} from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';

const survey = defineBot({
  id: 'transcript-survey',
  triggers: { keywords: ['VISIT'] },
  machine: setup({}).createMachine({
    initial: 'asking',
    states: {
      asking: {
        entry: reply('How was your visit, from 1 to 5?'),
        on: {
          'sms.reply': {
            target: 'done',
            actions: [
              record(({ event }) => ({ score: (event as { body?: string }).body })),
              reply('Thanks!'),
            ],
          },
        },
      },
      done: { type: 'final' },
    },
  }),
});

describe.each<StoreKind>(['redis', 'memory'])(
  "a conversation's transcript through the app (%s store, the emulator on loopback)",
  (store) => {
    let loop: ReplyLoop;
    beforeAll(async () => {
      loop = await startReplyLoop({
        registry: createBotRegistry([{ bot: survey, file: 'survey.ts' }]),
        store,
      });
    });
    afterAll(() => loop?.close());

    it('shows the question, the answer with the state it led to, and the thanks in order, each SMS delivered', async () => {
      const phone = store === 'redis' ? '33612348101' : '33612348102';
      await loop.start(phone, 'transcript-survey');
      await loop.waitForBodies(phone, 1);
      await loop.reply(phone, '4');
      await loop.waitForBodies(phone, 2);

      // The service's statuses come back through the webhook: wait for both deliveries.
      const key = { location, phone };
      let transcript: Transcript | null = null;
      await waitFor(async () => {
        transcript = await loop.store.readTranscript(key);
        const out = transcript?.entries.filter((entry) => entry.direction === 'out') ?? [];
        return out.length === 2 && out.every((entry) => entry.status === 'delivered');
      });
      const { entries, conversation } = transcript!;
      expect(
        entries.map(({ direction, body, stateAfter }) => [direction, body, stateAfter]),
      ).toEqual([
        ['out', 'How was your visit, from 1 to 5?', undefined],
        ['in', '4', 'done'],
        ['out', 'Thanks!', undefined],
      ]);
      for (const entry of entries.filter((e) => e.direction === 'out')) {
        expect(entry).toMatchObject({ smsId: expect.any(String), status: 'delivered', parts: 1 });
      }
      expect(entries.map((entry) => entry.at)).toEqual(
        [...entries.map((entry) => entry.at)].sort((a, b) => a - b),
      );
      expect(conversation).toMatchObject({
        bot: 'transcript-survey',
        status: 'done',
        state: 'done',
        result: { score: '4' },
        endCode: 'final',
        timers: [],
      });
    }, 30_000);

    it('starts with the keyword that started the conversation', async () => {
      const phone = store === 'redis' ? '33612348103' : '33612348104';
      const keyword = {
        id: `keyword-${phone}`,
        webhookId: 'w',
        type: 'sms.status',
        data: [{ originSms: { id: 'x' }, body: 'VISIT', from: `+${phone}`, to: '38200' }],
      };
      expect(await loop.notify(keyword)).toBe(200);
      await loop.waitForBodies(phone, 1);
      const key = { location, phone };
      await waitFor(async () => (await loop.store.readTranscript(key))?.entries.length === 2);
      const transcript = await loop.store.readTranscript(key);
      expect(
        transcript?.entries.map(({ direction, body, stateAfter }) => [direction, body, stateAfter]),
      ).toEqual([
        ['in', 'VISIT', 'asking'],
        ['out', 'How was your visit, from 1 to 5?', undefined],
      ]);
    }, 30_000);
  },
);
