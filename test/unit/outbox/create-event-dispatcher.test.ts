import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type {
  DeliveryAttempt,
  EventSubscription,
  OutboundEvent,
} from '../../../src/events/outbound-event.ts';
import {
  createEventDispatcher,
  type EventDispatcher,
} from '../../../src/outbox/create-event-dispatcher.ts';
import { eventRetryAt } from '../../../src/outbox/event-retry-at.ts';
import { createManualClock } from '../../../src/scheduler/create-manual-clock.ts';
import { createMemoryStore } from '../../../src/store/memory/create-memory-store.ts';
import type { Store } from '../../../src/store/store.ts';
import { waitFor } from '../../support/wait-for.ts';

const t0 = 1_763_700_000_000;
const phone = '33612345678';
const ok: DeliveryAttempt = { ok: true, status: 200, retryable: false, durationMs: 1 };
const failing: DeliveryAttempt = {
  ok: false,
  status: 500,
  error: 'http_500',
  retryable: true,
  durationMs: 1,
};

function event(id: string, type = 'conversation.ended'): OutboundEvent {
  return {
    id,
    type,
    timestamp: new Date(t0).toISOString(),
    data: {
      location: 'paris',
      bot: 'survey',
      botVersion: 'v',
      runId: 'run-1',
      phone,
      maskedPhone: '336•••••678',
      payload: {},
    },
  };
}

/** Queues `events` through a real commit of the memory store. */
async function queued(store: Store, events: OutboundEvent[]) {
  await store.ingest(
    'n-1',
    [
      {
        event: {
          v: 1,
          id: 'e-1',
          kind: 'start',
          input: {},
          location: 'paris',
          phone,
          botId: 'survey',
          receivedAt: t0,
        },
      },
    ],
    t0,
  );
  const claim = await store.claim('inbox', store.partitionOf(phone), 30_000, t0);
  const commit = { eventId: 'e-1', expectedSeq: 0, record: null, outbound: [], events };
  expect(await store.commitStep(claim!, commit, t0)).toMatchObject({ ok: true });
}

let dispatcher: EventDispatcher | undefined;
afterEach(() => dispatcher?.stop());

function start(
  store: Store,
  subscriptions: EventSubscription[],
  post: (s: EventSubscription, e: OutboundEvent) => Promise<DeliveryAttempt>,
  clock = createManualClock(t0),
) {
  const results: string[] = [];
  dispatcher = createEventDispatcher({
    store,
    subscriptions: () => subscriptions,
    post,
    clock,
    logger: pino({ level: 'silent' }),
    metrics: { outboundWebhook: (result) => results.push(result) },
    pollMs: 1,
    random: () => 1,
    retryForMs: 10_000,
  });
  dispatcher.start();
  return { results, clock };
}

const sub = (url: string, types?: string[]): EventSubscription => ({
  url,
  secret: 'whsec_x',
  ...(types && { types }),
});

describe('createEventDispatcher', () => {
  it('posts to each subscription that wants the type, and settles delivered when all took it', async () => {
    const store = createMemoryStore({ partitions: 4 });
    await queued(store, [event('evt_e-1_0'), event('evt_e-1_1', 'optout')]);
    const posts: string[] = [];
    const { results } = start(store, [sub('a'), sub('b', ['optout'])], async (s, e) => {
      posts.push(`${s.url}:${e.id}`);
      return ok;
    });
    await waitFor(() => results.length === 2 || undefined);
    expect(posts.sort()).toEqual(['a:evt_e-1_0', 'a:evt_e-1_1', 'b:evt_e-1_1']);
    expect(results).toEqual(['delivered', 'delivered']);
    expect(await store.listEvents({ limit: 10 })).toEqual([]);
  });

  it('retries with backoff from 1 s, then dead-letters once the retry window is over', async () => {
    const store = createMemoryStore({ partitions: 4 });
    await queued(store, [event('evt_e-1_0')]);
    const { results, clock } = start(store, [sub('a')], async () => failing);
    await waitFor(() => results.length === 1 || undefined);
    const [listed] = await store.listEvents({ limit: 1 });
    expect(listed).toMatchObject({ attempts: 1, dueAt: t0 + 1_000, lastError: 'http_500' });
    for (const [advance, due] of [
      [1_000, 2_000],
      [2_000, 4_000],
      [4_000, 8_000],
    ] as const) {
      clock.advance(advance);
      await waitFor(() => results.length === Math.log2(due / 1_000) + 1 || undefined);
    }
    // The round at t0 + 7 s would retry at t0 + 15 s: past the 10 s window, so it is the last.
    expect(results).toEqual(['retry', 'retry', 'retry', 'dead_letter']);
    const [dead] = await store.listEvents({ failed: true, limit: 1 });
    expect(dead).toMatchObject({ attempts: 4, reason: 'retries_exhausted:http_500' });
  });

  it('dead-letters at once when retrying cannot help', async () => {
    const store = createMemoryStore({ partitions: 4 });
    await queued(store, [event('evt_e-1_0')]);
    const refused = { ...failing, status: 400, error: 'http_400', retryable: false };
    const { results } = start(store, [sub('a')], async () => refused);
    await waitFor(() => results.length === 1 || undefined);
    expect(results).toEqual(['dead_letter']);
    expect(await store.listEvents({ failed: true, limit: 1 })).toMatchObject([
      { reason: 'http_400', attempts: 1 },
    ]);
  });
});

describe('eventRetryAt', () => {
  it('draws a time up to 1 s doubling per attempt, at most an hour, and honours Retry-After', () => {
    const at = (attempts: number, random: number, retryAfterMs = 0) =>
      eventRetryAt({
        attempts,
        now: 0,
        baseMs: 1_000,
        maxMs: 3_600_000,
        retryAfterMs,
        random: () => random,
      });
    expect(at(0, 1)).toBe(1_000);
    expect(at(3, 1)).toBe(8_000);
    expect(at(3, 0.5)).toBe(4_000);
    expect(at(30, 1)).toBe(3_600_000);
    expect(at(0, 0, 5_000)).toBe(5_000);
  });
});
