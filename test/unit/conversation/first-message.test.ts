import { describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import type { BotEvent } from '../../../src/bot/bot-events.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { defineBot } from '../../../src/bot/define-bot.ts';
import { loadBots } from '../../../src/bot/load-bots.ts';
import { reply } from '../../../src/bot/reply.ts';
import { runStep } from '../../../src/conversation/run-step.ts';
import type { MailboxEvent } from '../../../src/store/records.ts';

/** A bot that tells, in its answers, every event it heard. */
const listener = defineBot({
  id: 'listener',
  triggers: { keywords: ['LISTEN'] },
  fallback: true,
  machine: setup({ types: { events: {} as BotEvent } }).createMachine({
    initial: 'on',
    states: {
      on: {
        entry: reply('hello'),
        on: {
          'conversation.start': {
            actions: reply(({ event }) =>
              event.type === 'conversation.start'
                ? `start ${JSON.stringify(event.input)} ${JSON.stringify(event.trigger ?? null)}`
                : '',
            ),
          },
          'sms.reply': { actions: reply('heard a reply') },
        },
      },
    },
  }),
});
const registry = createBotRegistry([{ bot: listener, file: 'listener.ts' }]);

const reply1: MailboxEvent = {
  v: 1,
  id: 'n1:0',
  kind: 'reply',
  location: 'paris',
  phone: '33612345678',
  receivedAt: Date.parse('2026-12-01T09:00:00Z'),
  body: 'Listen!',
  originSmsId: 'sms-1',
  to: '38200',
};

function bodies(event: MailboxEvent, reg = registry): string[] {
  const { commit } = runStep({
    event,
    record: null,
    message: null,
    registry: reg,
    now: event.receivedAt,
    newRunId: () => 'run-1',
  });
  return commit.outbound.map((m) => m.body);
}

describe('the first message of a conversation', () => {
  it('reaches a keyword-started bot as conversation.start.trigger, never as sms.reply', () => {
    expect(bodies(reply1)).toEqual([
      'hello',
      `start {"keyword":"listen"} ${JSON.stringify({
        body: 'Listen!',
        from: '33612345678',
        receivedAt: '2026-12-01T09:00:00.000Z',
        originSmsId: 'sms-1',
      })}`,
    ]);
  });

  it('reaches the fallback bot the same way', () => {
    const [, start] = bodies({ ...reply1, body: 'what is this?' });
    expect(start).toMatch(/^start \{\} \{"body":"what is this\?"/);
  });

  it('is absent from a conversation started by the API', () => {
    const start: MailboxEvent = {
      v: 1,
      id: 'start:1:0',
      kind: 'start',
      location: 'paris',
      phone: '33612345678',
      receivedAt: 0,
      botId: 'listener',
      input: { name: 'Ana' },
    };
    expect(bodies(start)).toEqual(['hello', 'start {"name":"Ana"} null']);
  });

  it('gives every bot in bots/ its first message only when started by its keyword', async () => {
    const bots = await loadBots('bots');
    const keyworded = [...bots.bots.values()].filter((bot) => bot.keywords.length > 0);
    expect(keyworded.length).toBeGreaterThan(0);
    for (const bot of keyworded) {
      for (const keyword of bot.keywords) {
        const byKeyword = bodies({ ...reply1, body: keyword.toUpperCase() }, bots);
        // What the bot sends when it starts with that input and no message: its first message.
        const first = bodies(
          {
            v: 1,
            id: 'start:k:0',
            kind: 'start',
            location: 'paris',
            phone: '33612345678',
            receivedAt: reply1.receivedAt,
            botId: bot.id,
            input: { keyword },
          },
          bots,
        );
        expect(byKeyword.length, `${bot.id} answers ${keyword}`).toBeGreaterThan(0);
        expect(byKeyword, `${bot.id} started by ${keyword}`).toEqual(first);
      }
    }
  });
});
