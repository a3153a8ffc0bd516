import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type {
  DeliveryAttempt,
  EventSubscription,
  OutboundEvent,
} from '../../../src/events/outbound-event.ts';
import { subscriptionKey } from '../../../src/events/subscription-key.ts';
import {
  createEventDispatcher,
  type EventDispatcher,
  type EventDispatcherOptions,
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
  retryForMs: EventDispatcherOptions['retryForMs'] = 10_000,
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
    retryForMs,
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
    expect(listed).toMatchObject({ attempts: 1, dueAt: t0 + 1_000, lastError: 'http_500 from a' });
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
    expect(dead).toMatchObject({ attempts: 4, reason: 'retries_exhausted:http_500 from a' });
  });

  it('dead-letters at once when retrying cannot help', async () => {
    const store = createMemoryStore({ partitions: 4 });
    await queued(store, [event('evt_e-1_0')]);
    const refused = { ...failing, status: 400, error: 'http_400', retryable: false };
    const { results } = start(store, [sub('a')], async () => refused);
    await waitFor(() => results.length === 1 || undefined);
    expect(results).toEqual(['dead_letter']);
    expect(await store.listEvents({ failed: true, limit: 1 })).toMatchObject([
      { reason: 'http_400 from a', attempts: 1 },
    ]);
  });

  it('claims at once a partition the store says had events queued (an import, an opt-in, a replay), without waiting for its poll', async () => {
    const store = createMemoryStore({ partitions: 4 });
    // Partition 0 is claimed at start, then the poll rests: phones of the other partitions.
    const phones = ['33612345601', '33612345602', '33612345603', '33612345604', '33612345605']
      .filter((p) => store.partitionOf(p) !== 0)
      .slice(0, 3);
    expect(phones).toHaveLength(3);
    const at = (i: number) => ({
      ...event(`evt_x_${i}`, 'optout'),
      data: { ...event('').data, phone: phones[i]! },
    });
    // A dead letter to replay, made before the dispatcher starts.
    await store.addSuppressions('paris', [{ phone: phones[0]!, at: t0, event: at(0) }], 'import');
    const p0 = store.partitionOf(phones[0]!);
    const [claimed] = await store.claimDueEvents(p0, t0, 60_000, 1);
    expect(claimed?.event.id).toBe('evt_x_0');
    await store.settleEvent(p0, 'evt_x_0', { deadLetter: 'http_410 from a' }, t0);

    const posts: string[] = [];
    dispatcher = createEventDispatcher({
      store,
      subscriptions: () => [sub('a')],
      post: async (_, e) => {
        posts.push(e.id);
        return ok;
      },
      clock: createManualClock(t0),
      logger: pino({ level: 'silent' }),
      metrics: { outboundWebhook: () => {} },
      // Minutes between two partitions: an event found by polling would not come in the test.
      pollMs: 600_000,
    });
    dispatcher.start();
    await store.addSuppressions('paris', [{ phone: phones[1]!, at: t0, event: at(1) }], 'import');
    await waitFor(() => posts.includes('evt_x_1') || undefined);
    await store.removeSuppression({ location: 'paris', phone: phones[2]! }, at(2));
    expect(posts).not.toContain('evt_x_2');
    await store.addSuppressions('paris', [{ phone: phones[2]!, at: t0 }], 'import');
    await store.removeSuppression({ location: 'paris', phone: phones[2]! }, at(2));
    await waitFor(() => posts.includes('evt_x_2') || undefined);
    expect(await store.replayEvent('evt_x_0', t0)).toBe(true);
    await waitFor(() => posts.includes('evt_x_0') || undefined);
    expect(posts.sort()).toEqual(['evt_x_0', 'evt_x_1', 'evt_x_2']);
  });
});

describe('createEventDispatcher, per subscription', () => {
  const refused: DeliveryAttempt = { ...failing, status: 400, error: 'http_400', retryable: false };

  it('does not send again to a subscription that took it when another refuses; the replay goes to that one alone', async () => {
    const store = createMemoryStore({ partitions: 4 });
    await queued(store, [event('evt_e-1_0')]);
    const posts: string[] = [];
    let bRefuses = true;
    const { results } = start(store, [sub('a'), sub('b')], async (s) => {
      posts.push(s.url);
      return s.url === 'b' && bRefuses ? refused : ok;
    });
    await waitFor(() => results.length === 1 || undefined);
    expect(results).toEqual(['dead_letter']);
    const [dead] = await store.listEvents({ failed: true, limit: 1 });
    expect(dead).toMatchObject({
      reason: 'http_400 from b',
      deliveredTo: [subscriptionKey(sub('a'))],
      gaveUpOn: { [subscriptionKey(sub('b'))]: 'http_400' },
    });
    bRefuses = false;
    expect(await store.replayEvent('evt_e-1_0', t0)).toBe(true);
    await waitFor(() => results.length === 2 || undefined);
    expect(results).toEqual(['dead_letter', 'delivered']);
    expect(posts).toEqual(['a', 'b', 'b']);
  });

  it('goes on retrying the others when one is given up, then dead-letters naming it', async () => {
    const store = createMemoryStore({ partitions: 4 });
    await queued(store, [event('evt_e-1_0')]);
    const posts: string[] = [];
    const { results, clock } = start(store, [sub('a'), sub('b'), sub('c')], async (s) => {
      posts.push(s.url);
      if (s.url === 'b') return refused;
      // c fails its first attempt, then takes it.
      return s.url === 'c' && posts.filter((p) => p === 'c').length === 1 ? failing : ok;
    });
    await waitFor(() => results.length === 1 || undefined);
    const [waiting] = await store.listEvents({ limit: 1 });
    expect(waiting).toMatchObject({
      lastError: 'http_400 from b, http_500 from c',
      deliveredTo: [subscriptionKey(sub('a'))],
    });
    clock.advance(1_000);
    await waitFor(() => results.length === 2 || undefined);
    expect(results).toEqual(['retry', 'dead_letter']);
    expect(posts.sort()).toEqual(['a', 'b', 'c', 'c']);
    expect(await store.listEvents({ failed: true, limit: 1 })).toMatchObject([
      { reason: 'http_400 from b' },
    ]);
  });

  it('gives each subscription its own retry window: the short one is given up, the other retried on', async () => {
    const store = createMemoryStore({ partitions: 4 });
    await queued(store, [event('evt_e-1_0')]);
    const posts: string[] = [];
    const { results, clock } = start(
      store,
      [sub('short'), sub('long')],
      async (s) => {
        posts.push(s.url);
        return failing;
      },
      createManualClock(t0),
      (s) => (s.url === 'short' ? 1_500 : 60_000),
    );
    // Retries at +1 s, then +2 s more: the second is past short's 1.5 s.
    await waitFor(() => results.length === 1 || undefined);
    clock.advance(1_000);
    await waitFor(() => results.length === 2 || undefined);
    const [waiting] = await store.listEvents({ limit: 1 });
    expect(waiting?.gaveUpOn).toEqual({
      [subscriptionKey(sub('short'))]: 'retries_exhausted:http_500',
    });
    clock.advance(2_000);
    await waitFor(() => results.length === 3 || undefined);
    expect(posts).toEqual(['short', 'long', 'short', 'long', 'long']);
    expect(results).toEqual(['retry', 'retry', 'retry']);
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
