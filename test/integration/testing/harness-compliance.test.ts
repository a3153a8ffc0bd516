import { type BotEvent, defineBot, reply } from 'replyflow';
import { createTestHarness, type TestHarness } from 'replyflow/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import appointment from '../../fixtures/kit-bots/appointment.ts';

/** Says hello when started, and answers every message. */
const echo = defineBot({
  id: 'echo',
  machine: setup({ types: { events: {} as BotEvent } }).createMachine({
    initial: 'talking',
    states: {
      talking: {
        entry: reply('Hello!'),
        on: {
          'sms.reply': {
            actions: reply(({ event }) => `You said: ${'body' in event ? event.body : ''}`),
          },
        },
      },
    },
  }),
});

describe('the harness runs the compliance step before any bot', () => {
  let harness: TestHarness;
  afterEach(() => harness?.close());

  it('ends a conversation on STOP with opted_out and one confirmation', async () => {
    harness = await createTestHarness({ bots: [appointment] });
    const ana = harness.phone('33612345678');
    await harness.start(appointment, ana, { name: 'Ana' });
    await ana.send('STOP');
    const messages = await ana.messages();
    expect(messages).toHaveLength(2);
    expect(messages[1]?.body).not.toBe(messages[0]?.body);
    expect(await ana.state()).toBe('ended');
    expect(await ana.result()).toMatchObject({ endCode: 'opted_out' });
  });

  it('holds what the bot starts on its own during the quiet hours given to createTestHarness, in their time zone', async () => {
    harness = await createTestHarness({
      bots: [echo],
      now: '2026-12-01T21:30:00+01:00',
      compliance: { quietHours: { timeZone: 'Europe/Paris', window: '21:00-08:00' } },
    });
    const ana = harness.phone('+33 6 12 34 56 78');
    await harness.start(echo, ana);
    expect(await ana.messages()).toEqual([]);
    await harness.advance('10h'); // 07:30 in Paris: still quiet
    expect(await ana.messages()).toEqual([]);
    await harness.advance('30m'); // 08:00: the quiet hours end
    const [hello] = await ana.messages();
    expect(hello?.body).toBe('Hello!');
    expect(hello?.at.toISOString()).toBe('2026-12-02T07:00:00.000Z');
  });

  it('applies the loop guard given to createTestHarness', async () => {
    harness = await createTestHarness({
      bots: [echo],
      compliance: { loopGuard: { max: 3, window: '1m' } },
    });
    const ana = harness.phone('+33 6 12 34 56 78');
    await harness.start(echo, ana);
    for (const text of ['one', 'two', 'three', 'four']) await ana.send(text);
    expect((await ana.messages()).map((m) => m.body)).toEqual([
      'Hello!',
      'You said: one',
      'You said: two',
    ]);
  });

  it('refuses a bad compliance section naming the field', async () => {
    await expect(
      createTestHarness({
        bots: [echo],
        compliance: { quietHours: { timeZone: 'Mars/Olympus', window: '21:00-08:00' } },
      }),
    ).rejects.toThrow(/compliance\.quietHours\.timeZone: 'Mars\/Olympus' is not a known time zone/);
  });
});
