import { afterEach, describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import type { BotEvent } from '../../../src/bot/bot-events.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { defineBot } from '../../../src/bot/define-bot.ts';
import { reply } from '../../../src/bot/reply.ts';
import { createManualClock } from '../../../src/scheduler/create-manual-clock.ts';
import reminder from '../../fixtures/bots/reminder-bot.ts';
import { location, type ReplyLoop, settle, startReplyLoop } from '../../support/reply-loop.ts';

/** A bot with no timer of its own: only its 3-day expiry can end it. */
const idle = defineBot({
  id: 'idle',
  expiresAfter: '3d',
  machine: setup({ types: { events: {} as BotEvent } }).createMachine({
    initial: 'chatting',
    states: {
      chatting: {
        entry: reply('Ask me anything.'),
        on: {
          'sms.reply': { actions: reply('Noted.') },
          'conversation.expire': { actions: reply('This conversation has expired.') },
        },
      },
    },
  }),
});
const registry = createBotRegistry([
  { bot: reminder, file: 'reminder.ts' },
  { bot: idle, file: 'idle.ts' },
]);
const greeting = 'Please confirm your appointment: reply YES.';
const reminderText = 'Reminder: please reply YES to confirm.';

describe.each(['redis', 'memory'] as const)('durable timers on the %s store', (store) => {
  let loop: ReplyLoop;
  afterEach(() => loop?.close());

  it('sends the 24 h reminder exactly once after every process was stopped and the clock moved 25 h', async () => {
    const clock = createManualClock(Date.parse('2026-11-21T09:00:00Z'));
    // The web server only takes notifications in; "processes" are the instances started below.
    loop = await startReplyLoop({
      store,
      registry,
      clock,
      roles: { worker: false, sender: false, scheduler: false },
    });
    const phone = '33612341001';
    const first = await loop.startInstance();
    await loop.start(phone, 'reminder');
    expect(await loop.waitForBodies(phone, 1)).toEqual([greeting]);
    expect((await loop.store.pendingTimers({ location, phone })).map((t) => t.sendId)).toEqual([
      'xstate.after.24h.reminder.waiting',
      'replyflow.expire',
    ]);
    await first.close();

    clock.advance('25h');
    const restarted = await loop.startInstance();
    await restarted.fireDueTimers!();
    expect(await loop.waitForBodies(phone, 2)).toEqual([greeting, reminderText]);
    await restarted.fireDueTimers!();
    await settle(loop, phone);
    expect(await loop.bodiesTo(phone)).toEqual([greeting, reminderText]);
  });

  it('sends nothing when a reply came first and left the waiting state', async () => {
    const clock = createManualClock();
    loop = await startReplyLoop({ store, registry, clock });
    const phone = '33612341002';
    await loop.start(phone, 'reminder');
    await loop.waitForBodies(phone, 1);
    await loop.reply(phone, 'YES');
    expect(await loop.waitForBodies(phone, 2)).toEqual([greeting, 'Confirmed, thank you.']);
    // The reply's notification answered for good before a day passes (see `emulatorIdle`).
    await loop.emulatorIdle();
    clock.advance('25h');
    await loop.app.fireDueTimers!();
    await settle(loop, phone);
    expect(await loop.bodiesTo(phone)).toEqual([greeting, 'Confirmed, thank you.']);
    expect(await loop.store.pendingTimers({ location, phone })).toEqual([]);
  });

  it.runIf(store === 'redis')(
    'sends the reminder once with 3 processes sweeping at the same time',
    async () => {
      const clock = createManualClock();
      loop = await startReplyLoop({
        store,
        registry,
        clock,
        roles: { worker: false, sender: false, scheduler: false },
      });
      const processes = await Promise.all([
        loop.startInstance(),
        loop.startInstance(),
        loop.startInstance(),
      ]);
      const phones = Array.from({ length: 20 }, (_, i) => `336123420${String(i).padStart(2, '0')}`);
      for (const phone of phones) await loop.start(phone, 'reminder');
      for (const phone of phones) await loop.waitForBodies(phone, 1);
      clock.advance('25h');
      // Each process's own scheduler may take some before these explicit sweeps run.
      const moved = await Promise.all(processes.map((p) => p.fireDueTimers!()));
      expect(moved.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(phones.length);
      for (const phone of phones)
        expect(await loop.waitForBodies(phone, 2)).toEqual([greeting, reminderText]);
      await settle(loop, phones.at(-1)!);
      for (const phone of phones)
        expect(await loop.bodiesTo(phone)).toEqual([greeting, reminderText]);
    },
  );

  it('expires an idle conversation after its expiresAfter, through the same timers', async () => {
    const clock = createManualClock();
    loop = await startReplyLoop({ store, registry, clock });
    const phone = '33612341003';
    await loop.start(phone, 'reminder');
    await loop.waitForBodies(phone, 1);
    clock.advance('25h');
    await loop.app.fireDueTimers!();
    await loop.waitForBodies(phone, 2);
    clock.advance('8d');
    await loop.app.fireDueTimers!();
    // The 2 d "give up" timer comes first, and its final state ends the conversation; the expiry is dropped.
    expect(await loop.waitForBodies(phone, 3)).toEqual([
      greeting,
      reminderText,
      'We will call you.',
    ]);
    await settle(loop, phone);
    expect(await loop.store.getConversation({ location, phone })).toMatchObject({
      status: 'done',
      endedReason: 'final',
    });
    expect(await loop.store.pendingTimers({ location, phone })).toEqual([]);

    // A conversation with no timer of its own expires 3 days after its last activity.
    const quiet = '33612341004';
    await loop.start(quiet, 'idle');
    await loop.waitForBodies(quiet, 1);
    clock.advance('2d');
    await loop.reply(quiet, 'still here');
    expect(await loop.waitForBodies(quiet, 2)).toEqual(['Ask me anything.', 'Noted.']);
    await loop.emulatorIdle();
    clock.advance('2d');
    await loop.app.fireDueTimers!();
    await settle(loop, quiet);
    expect(await loop.store.getConversation({ location, phone: quiet })).toMatchObject({
      status: 'active',
    });
    clock.advance('1d');
    await loop.app.fireDueTimers!();
    expect((await loop.waitForBodies(quiet, 3))[2]).toBe('This conversation has expired.');
    await settle(loop, quiet);
    expect(await loop.store.getConversation({ location, phone: quiet })).toMatchObject({
      status: 'done',
      endedReason: 'expired',
    });
  });
});
