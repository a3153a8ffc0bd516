import { afterEach, describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { defineBot } from '../../../src/bot/define-bot.ts';
import type { OutboundEvent } from '../../../src/events/outbound-event.ts';
import { createRedisStore } from '../../../src/store/redis/create-redis-store.ts';
import type { Store } from '../../../src/store/store.ts';
import { suppressionEvent } from '../../../src/suppressions/suppression-event.ts';
import { eventReceiver } from '../../support/event-receiver.ts';
import { connectRedis, startReplyLoop } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';
import { replyEvent } from '../store/contract/fixtures.ts';

/**
 * An event queued by a process that runs no dispatcher (a worker-only process's step, an
 * operator's `replyflow suppressions add` or `remove`, a replay from the CLI) reaches the
 * subscriptions as soon as it is queued: the store tells every process sharing it
 * (`onEventsQueued`), not only the one whose commit queued it. The dispatcher here polls so
 * slowly that an event found by its poll alone would take ten minutes.
 */
const idle = defineBot({
  id: 'idle',
  version: 'v1',
  machine: setup({}).createMachine({ id: 'idle', initial: 'open', states: { open: {} } }),
});
const registry = createBotRegistry([{ bot: idle, file: 'idle.ts' }]);

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function receiver() {
  const hook = await eventReceiver();
  cleanups.push(() => hook.close());
  return { subscription: hook.subscription, events: hook.accepted };
}

/**
 * Queues `events` through a direct step committed by `store` (another process's, with no
 * dispatcher): a reply's turn, which no mailbox held, so the loop's own worker never sees it.
 */
async function committedElsewhere(store: Store, phone: string, events: OutboundEvent[]) {
  const now = Date.now();
  const event = { ...replyEvent(`e-${phone}`, phone), receivedAt: now };
  const commit = { eventId: event.id, expectedSeq: 0, record: null, outbound: [], events };
  expect(await store.commitDirect(event, commit, now)).toMatchObject({ ok: true });
}

function stepEvent(phone: string): OutboundEvent {
  return {
    ...suppressionEvent('optout', 'paris', phone, Date.now(), {}),
    id: `evt_e-${phone}_0`,
    type: 'conversation.ended',
  };
}

describe.each(['redis', 'cluster'] as const)('events queued by another process, on %s', (kind) => {
  it("posts at once an operator's opt-out and opt-in and a step's event, each queued through another process's store", async () => {
    const hook = await receiver();
    const loop = await startReplyLoop({
      registry,
      store: kind,
      events: [hook.subscription],
      eventDispatcher: { pollMs: 600_000 },
    });
    cleanups.push(() => loop.close());
    // The other process: its own connection and store on the same Redis and prefix.
    const redis = connectRedis(loop.redis!);
    const other = createRedisStore({ redis, prefix: loop.redis!.prefix, onError: () => {} });
    cleanups.push(async () => {
      await other.close();
      redis.disconnect();
    });
    // Numbers of several partitions: the dispatcher's poll, stopped at its first, finds none.
    const phones = ['33612348101', '33612348102', '33612348103'];
    expect(new Set(phones.map((phone) => other.partitionOf(phone))).size).toBeGreaterThan(1);

    const optouts = phones.map((phone) =>
      suppressionEvent('optout', 'paris', phone, Date.now(), { source: 'import' }),
    );
    await other.addSuppressions(
      'paris',
      phones.map((phone, i) => ({ phone, at: Date.now(), event: optouts[i]! })),
      'import',
    );
    await waitFor(() => hook.events.length >= phones.length || undefined, {
      timeout: 15_000,
      message: 'an optout for each number imported',
    });

    const optin = suppressionEvent('optin', 'paris', phones[1]!, Date.now(), { source: 'cli' });
    expect(await other.removeSuppression({ location: 'paris', phone: phones[1]! }, optin)).toBe(
      true,
    );
    await waitFor(() => hook.events.length >= phones.length + 1 || undefined, {
      timeout: 15_000,
      message: 'the optin',
    });

    const ended = stepEvent('33612348104');
    await committedElsewhere(other, '33612348104', [ended]);
    await waitFor(() => hook.events.length >= phones.length + 2 || undefined, {
      timeout: 15_000,
      message: "the step's event",
    });

    expect(hook.events.map((event) => event.id).sort()).toEqual(
      [...optouts.map((event) => event.id), optin.id, ended.id].sort(),
    );
  });
});
