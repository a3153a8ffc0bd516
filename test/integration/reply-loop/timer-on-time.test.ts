import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import type { BotEvent } from '../../../src/bot/bot-events.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { defineBot } from '../../../src/bot/define-bot.ts';
import { durations } from '../../../src/bot/parse-duration.ts';
import { reply } from '../../../src/bot/reply.ts';
import { location, type ReplyLoop, startReplyLoop } from '../../support/reply-loop.ts';

/** Greets, then nudges 3 s later on its own: a timer the worker arms in the scheduler. */
const nudge = defineBot({
  id: 'nudge',
  machine: setup({ types: { events: {} as BotEvent }, delays: durations('3s') }).createMachine({
    initial: 'waiting',
    states: {
      waiting: { entry: reply('Hello.'), after: { '3s': 'nudged' } },
      nudged: { entry: reply('Still there?') },
    },
  }),
});

describe.each(['redis', 'memory'] as const)('a timer on the real clock (%s store)', (store) => {
  let loop: ReplyLoop;
  beforeAll(async () => {
    loop = await startReplyLoop({
      store,
      registry: createBotRegistry([{ bot: nudge, file: 'nudge.ts' }]),
    });
  });
  afterAll(() => loop?.close());

  it('fires within 1 s of its due time through the scheduler’s own wait (no tick), told by the worker', async () => {
    const phone = store === 'redis' ? '33612348001' : '33612348002';
    await loop.start(phone, 'nudge');
    await loop.waitForBodies(phone, 1);
    const [timer] = await loop.store.pendingTimers({ location, phone });
    expect(timer?.sendId).toContain('3s');
    const dueAt = timer!.dueAt;
    expect(await loop.waitForBodies(phone, 2, 10_000)).toEqual(['Hello.', 'Still there?']);
    const res = await fetch(`${loop.emulator.url}/_emulator/messages?to=${phone}`);
    const sent = (await res.json()) as Array<{ body: string; createdAt: string }>;
    const nudgedAt = Date.parse(sent.find((m) => m.body === 'Still there?')!.createdAt);
    // Fired, run, sent and accepted by the service, all within a second of the due time.
    expect(nudgedAt).toBeGreaterThanOrEqual(dueAt);
    expect(nudgedAt - dueAt).toBeLessThan(1_000);
  });
});

describe('a timer armed by a process whose scheduler is not running (redis store)', () => {
  let loop: ReplyLoop;
  beforeAll(async () => {
    // The process that arms the timer runs no scheduler, as if its scheduler had died.
    loop = await startReplyLoop({
      store: 'redis',
      registry: createBotRegistry([{ bot: nudge, file: 'nudge.ts' }]),
      roles: { scheduler: false },
    });
  });
  afterAll(() => loop?.close());

  it('fires within 1 s of its due time through another process’s scheduler, told by the commit', async () => {
    // Started before the timer is armed: its first read of the partitions finds nothing, and
    // its safety read comes round to one partition a second. Only the commit's announcement
    // (timers:<partition>:<due>) tells it in time.
    const other = await loop.startInstance({
      web: false,
      worker: false,
      sender: false,
      scheduler: true,
    });
    // Its first look at every partition is over (nothing due) before the timer exists.
    await other.fireDueTimers?.();
    // A phone of the last partitions: the safety read (partition 0, 1, 2… a second) would
    // reach it only after the due time.
    const phone = Array.from({ length: 200 }, (_, i) => String(33_612_348_100 + i)).find(
      (candidate) => loop.store.partitionOf(candidate) >= loop.store.partitions - 4,
    )!;
    await loop.start(phone, 'nudge');
    await loop.waitForBodies(phone, 1);
    const [timer] = await loop.store.pendingTimers({ location, phone });
    const dueAt = timer!.dueAt;
    expect(await loop.waitForBodies(phone, 2, 20_000)).toEqual(['Hello.', 'Still there?']);
    const res = await fetch(`${loop.emulator.url}/_emulator/messages?to=${phone}`);
    const sent = (await res.json()) as Array<{ body: string; createdAt: string }>;
    const nudgedAt = Date.parse(sent.find((m) => m.body === 'Still there?')!.createdAt);
    expect(nudgedAt).toBeGreaterThanOrEqual(dueAt);
    expect(nudgedAt - dueAt).toBeLessThan(1_000);
  });
});
