import { type BotEvent, defineBot, reply } from 'replyflow';
import { createBotRegistry, createTestHarness, type TestHarness } from 'replyflow/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import { checkLiveConversations } from '../../../src/conversation/check-live-conversations.ts';
import appointment from '../../fixtures/kit-bots/appointment.ts';
import join from '../../fixtures/kit-bots/join.ts';

/** The appointment bot of the fixtures, redefined without its `reminded` state. */
const appointmentWithoutReminder = defineBot({
  id: 'kit-appointment',
  machine: setup({ types: { events: {} as BotEvent } }).createMachine({
    initial: 'idle',
    states: {
      idle: { on: { 'conversation.start': 'booking' } },
      booking: { initial: 'asking', states: { asking: { entry: reply('?') } } },
    },
  }),
});

describe('checkLiveConversations', () => {
  let harness: TestHarness;
  afterEach(() => harness?.close());

  it('groups live conversations by bot, version and nested state, and judges each group', async () => {
    harness = await createTestHarness({ bots: [appointment, join] });
    await harness.start(appointment, '33610000001', { name: 'A' });
    await harness.start(appointment, '33610000002', { name: 'B' });
    await harness.advance('24h');
    await harness.start(appointment, '33610000003', { name: 'C' });
    await harness.phone('33610000004').send('JOIN');
    // An ended conversation is not live.
    await harness.start(appointment, '33610000005', { name: 'D' });
    await harness.phone('33610000005').send('non');

    const same = await checkLiveConversations(harness.store, harness.registry, 2);
    expect(same.total).toBe(4);
    expect(same.breaking).toEqual([]);
    expect(same.groups.map((g) => [g.bot, g.state, g.count, g.verdict])).toEqual([
      ['kit-appointment', 'booking.asking', 1, 'unchanged'],
      ['kit-appointment', 'booking.reminded', 2, 'unchanged'],
      ['kit-join', 'asking', 1, 'unchanged'],
    ]);

    const changed = await checkLiveConversations(
      harness.store,
      createBotRegistry([{ bot: appointmentWithoutReminder, file: 'new.ts' }]),
    );
    expect(changed.groups).toEqual([
      expect.objectContaining({
        state: 'booking.asking',
        stateExists: true,
        verdict: 'ends',
        endCode: 'version_changed',
      }),
      expect.objectContaining({
        state: 'booking.reminded',
        count: 2,
        stateExists: false,
        verdict: 'ends',
      }),
      expect.objectContaining({ bot: 'kit-join', verdict: 'bot removed', endCode: 'BOT_REMOVED' }),
    ]);
    expect(changed.breaking).toHaveLength(3);
  });
});
