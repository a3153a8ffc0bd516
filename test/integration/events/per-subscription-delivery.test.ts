import { afterEach, describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import type { BotEvent } from '../../../src/bot/bot-events.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { defineBot } from '../../../src/bot/define-bot.ts';
import { record } from '../../../src/bot/record.ts';
import { reply } from '../../../src/bot/reply.ts';
import type { EventSubscription, OutboundEvent } from '../../../src/events/outbound-event.ts';
import { subscriptionKey } from '../../../src/events/subscription-key.ts';
import { eventReceiver } from '../../support/event-receiver.ts';
import { type ReplyLoop, startReplyLoop } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';

const survey = defineBot({
  id: 'survey',
  machine: setup({ types: { events: {} as BotEvent } }).createMachine({
    initial: 'asking',
    states: {
      asking: {
        entry: reply('Score 0-10?'),
        on: {
          'sms.reply': {
            target: 'done',
            actions: record(({ event }) => ({
              score: Number(event.type === 'sms.reply' ? event.body : NaN),
            })),
          },
        },
      },
      done: { type: 'final', entry: reply('Thanks.') },
    },
  }),
});
const registry = createBotRegistry([{ bot: survey, file: 'survey.ts' }]);

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function receiver(status: () => number, allowPrivateAddresses = true) {
  const hook = await eventReceiver(status, allowPrivateAddresses);
  cleanups.push(() => hook.close());
  return hook;
}

async function loopWith(events: EventSubscription[]): Promise<ReplyLoop> {
  const loop = await startReplyLoop({
    registry,
    events,
    eventDispatcher: { pollMs: 5, baseBackoffMs: 10, maxBackoffMs: 50 },
  });
  cleanups.push(() => loop.close());
  return loop;
}

/** Three people answer the survey: 3 events each (started, result, ended). */
async function threeSurveys(loop: ReplyLoop): Promise<void> {
  const phones = ['33612348001', '33612348002', '33612348003'];
  for (const phone of phones) await loop.start(phone, 'survey');
  for (const phone of phones) await loop.waitForBodies(phone, 1);
  for (const phone of phones) await loop.reply(phone, '8');
  for (const phone of phones) await loop.waitForBodies(phone, 2);
}

const countById = (events: OutboundEvent[]) => {
  const counts = new Map<string, number>();
  for (const event of events) counts.set(event.id, (counts.get(event.id) ?? 0) + 1);
  return counts;
};

describe('delivery per subscription, on redis', () => {
  it('a healthy receiver gets each event once while another refuses; the dead letters replay to the refusing one alone', {
    timeout: 60_000,
  }, async () => {
    const healthy = await receiver(() => 204);
    let refusing = true;
    const failing = await receiver(() => (refusing ? 400 : 200));
    const loop = await loopWith([healthy.subscription, failing.subscription]);
    await threeSurveys(loop);
    const events = 9;
    const dead = await waitFor(
      async () => {
        const failed = await loop.store.listEvents({ failed: true, limit: 100 });
        return failed.length === events && failed;
      },
      { timeout: 20_000, message: `${events} dead letters` },
    );
    expect(await loop.store.listEvents({ limit: 100 })).toEqual([]);
    // Each dead letter names the receiver that refused, and keeps the one that took it.
    for (const letter of dead) {
      expect(letter.reason).toMatch(/^http_400 from 127\.0\.0\.1:\d+$/);
      expect(letter.deliveredTo).toEqual([subscriptionKey(healthy.subscription)]);
    }
    expect([...countById(healthy.accepted).values()]).toEqual(Array(events).fill(1));
    expect(failing.requests()).toBe(events);

    refusing = false;
    for (const letter of dead)
      expect(await loop.store.replayEvent(letter.event.id, Date.now())).toBe(true);
    await waitFor(() => failing.accepted.length === events || undefined, {
      timeout: 20_000,
      message: 'the replays reach the receiver that refused',
    });
    await waitFor(async () => (await loop.store.listEvents({ limit: 100 })).length === 0, {
      message: 'the replays settled',
    });
    expect(await loop.store.listEvents({ failed: true, limit: 100 })).toEqual([]);
    // The replays went to the receiver that refused, same ids, and not again to the other.
    expect(new Set(failing.accepted.map((e) => e.id))).toEqual(
      new Set(dead.map((letter) => letter.event.id)),
    );
    expect([...countById(failing.accepted).values()]).toEqual(Array(events).fill(1));
    expect(healthy.accepted).toHaveLength(events);
  });

  it('a subscription refused at send time (a private address, not allowed) leaves the others their events', {
    timeout: 60_000,
  }, async () => {
    const healthy = await receiver(() => 204);
    const inside = await receiver(() => 204, false);
    const loop = await loopWith([inside.subscription, healthy.subscription]);
    await threeSurveys(loop);
    const dead = await waitFor(
      async () => {
        const failed = await loop.store.listEvents({ failed: true, limit: 100 });
        return failed.length === 9 && failed;
      },
      { timeout: 20_000, message: '9 dead letters' },
    );
    for (const letter of dead) {
      expect(letter.reason).toMatch(/^refused_private_address from 127\.0\.0\.1:\d+$/);
    }
    expect(inside.requests()).toBe(0);
    expect([...countById(healthy.accepted).values()]).toEqual(Array(9).fill(1));
  });
});
