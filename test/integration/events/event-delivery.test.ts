import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import type { BotEvent } from '../../../src/bot/bot-events.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { defineBot } from '../../../src/bot/define-bot.ts';
import { notify } from '../../../src/bot/notify.ts';
import { record } from '../../../src/bot/record.ts';
import { reply } from '../../../src/bot/reply.ts';
import { newEventSecret } from '../../../src/events/event-secret.ts';
import type { EventSubscription, OutboundEvent } from '../../../src/events/outbound-event.ts';
import { signedEvent } from '../../support/event-receiver.ts';
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
/** Answers every reply and notifies each one: the busiest event traffic a bot makes. */
const chatty = defineBot({
  id: 'chatty',
  machine: setup({ types: { events: {} as BotEvent } }).createMachine({
    entry: reply('Hi.'),
    on: {
      'sms.reply': {
        actions: [
          reply(({ event }) => `heard ${event.type === 'sms.reply' ? event.body : ''}`),
          notify('chatty.heard'),
        ],
      },
    },
  }),
});
const registry = createBotRegistry([
  { bot: survey, file: 'survey.ts' },
  { bot: chatty, file: 'chatty.ts' },
]);

interface Delivery {
  status: number;
  event: OutboundEvent;
}

const secret = newEventSecret();
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A receiver on loopback: `answer(n)` answers its n-th request (from 0), or never. */
async function receiver(answer: (n: number, res: ServerResponse) => void) {
  const deliveries: Delivery[] = [];
  let n = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const event = signedEvent(secret, req, body, res);
      if (!event) return;
      const index = n++;
      res.on('finish', () => deliveries.push({ status: res.statusCode, event }));
      answer(index, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const subscription: EventSubscription = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    secret,
    allowPrivateAddresses: true,
  };
  return {
    subscription,
    deliveries,
    requests: () => n,
    close: () => server.closeAllConnections(),
  };
}

async function loopWith(events: EventSubscription[] | undefined): Promise<ReplyLoop> {
  const loop = await startReplyLoop({
    registry,
    ...(events && { events }),
    // Quick rounds for the test: every partition polled in turn every 5 ms, retries within 50 ms.
    eventDispatcher: { pollMs: 5, baseBackoffMs: 10, maxBackoffMs: 50 },
  });
  cleanups.push(() => loop.close());
  return loop;
}

/** The 2xx deliveries, counted by event id (a receiver dedupes by it). */
function acceptedById(deliveries: Delivery[]): Map<string, Delivery[]> {
  const byId = new Map<string, Delivery[]>();
  for (const d of deliveries.filter((d) => d.status < 300)) {
    byId.set(d.event.id, [...(byId.get(d.event.id) ?? []), d]);
  }
  return byId;
}

describe('outbound events through the event outbox, on redis', () => {
  it('delivers conversation.ended with its end code and result, once by id, signed', async () => {
    const hook = await receiver((_, res) => res.writeHead(204).end());
    const loop = await loopWith([{ ...hook.subscription, types: ['conversation.ended'] }]);
    const phone = '33612349001';
    await loop.start(phone, 'survey');
    await loop.waitForBodies(phone, 1);
    await loop.reply(phone, '7');
    await loop.waitForBodies(phone, 2);
    await waitFor(() => hook.deliveries.length >= 1 || undefined, { timeout: 10_000 });
    // Time for a second copy, were one to come.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(hook.deliveries).toHaveLength(1);
    const [{ event }] = hook.deliveries as [Delivery];
    expect(event).toMatchObject({
      type: 'conversation.ended',
      data: {
        location: 'paris',
        bot: 'survey',
        botVersion: survey.version,
        phone,
        maskedPhone: '336•••••001',
        payload: { endCode: 'final', result: { score: 7 } },
      },
    });
    expect(event.id).toMatch(/^evt_.+_\d+$/);
    expect(await loop.store.listEvents({ limit: 10 })).toEqual([]);
  });

  it('delivers the events of a step as soon as it is committed, not when the poll of its partition comes round', async () => {
    const hook = await receiver((_, res) => res.writeHead(204).end());
    // A poll so slow that an event found by polling alone would take minutes.
    const loop = await startReplyLoop({
      registry,
      events: [{ ...hook.subscription, types: ['conversation.started', 'conversation.ended'] }],
      eventDispatcher: { pollMs: 600_000 },
    });
    cleanups.push(() => loop.close());
    const phones = ['33612349011', '33612349012', '33612349013'];
    for (const phone of phones) await loop.start(phone, 'survey');
    await waitFor(() => hook.deliveries.length >= phones.length || undefined, {
      timeout: 15_000,
      message: 'a conversation.started for each start',
    });
    for (const phone of phones) {
      await loop.waitForBodies(phone, 1);
      await loop.reply(phone, '8');
    }
    await waitFor(() => hook.deliveries.length >= 2 * phones.length || undefined, {
      timeout: 15_000,
      message: 'a conversation.ended for each answer',
    });
    expect(hook.deliveries.map(({ event }) => `${event.type} ${event.data.phone}`).sort()).toEqual(
      phones
        .flatMap((phone) => [`conversation.ended ${phone}`, `conversation.started ${phone}`])
        .sort(),
    );
  });

  it('retries a receiver that fails 5 times: each event reaches it exactly once by id', async () => {
    const hook = await receiver((n, res) => res.writeHead(n < 5 ? 500 : 200).end());
    const loop = await loopWith([hook.subscription]);
    const phone = '33612349002';
    await loop.start(phone, 'survey');
    await loop.waitForBodies(phone, 1);
    await loop.reply(phone, '3');
    await loop.waitForBodies(phone, 2);
    const types = ['conversation.started', 'result.recorded', 'conversation.ended'];
    await waitFor(() => acceptedById(hook.deliveries).size >= types.length || undefined, {
      timeout: 15_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const accepted = acceptedById(hook.deliveries);
    expect(hook.deliveries.filter((d) => d.status === 500)).toHaveLength(5);
    expect([...accepted.values()].map((copies) => copies.length)).toEqual([1, 1, 1]);
    expect(new Set([...accepted.values()].map(([d]) => d!.event.type))).toEqual(new Set(types));
    expect(await loop.store.listEvents({ limit: 10 })).toEqual([]);
    expect(await loop.store.listEvents({ failed: true, limit: 10 })).toEqual([]);
  });

  it('does not delay any SMS while the receiver hangs', async () => {
    const latencies = async (loop: ReplyLoop, phone: string) => {
      await loop.start(phone, 'chatty');
      await loop.waitForBodies(phone, 1);
      const took: number[] = [];
      for (let i = 1; i <= 12; i++) {
        const started = performance.now();
        await loop.reply(phone, `m${i}`);
        await loop.waitForBodies(phone, i + 1);
        took.push(performance.now() - started);
      }
      return took.sort((a, b) => a - b);
    };
    const without = await latencies(await loopWith(undefined), '33612349003');
    const hanging = await receiver(() => {});
    const loop = await loopWith([hanging.subscription]);
    const withHanging = await latencies(loop, '33612349004');
    // The receiver did get events, and answered none: the dispatcher waits on them.
    expect(hanging.requests()).toBeGreaterThan(0);
    expect(hanging.deliveries).toHaveLength(0);
    const median = (xs: number[]) => xs[Math.floor(xs.length / 2)]!;
    console.log(
      `reply → answer, median: ${median(without).toFixed(0)} ms without subscriptions, ` +
        `${median(withHanging).toFixed(0)} ms with a receiver that hangs`,
    );
    expect(median(withHanging)).toBeLessThan(median(without) * 2 + 50);
    hanging.close();
  });
});
