import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/app/config.ts';
import { createEventDelivery } from '../../../src/app/create-event-delivery.ts';
import { newEventSecret } from '../../../src/events/event-secret.ts';
import type { DeliveryAttempt, OutboundEvent } from '../../../src/events/outbound-event.ts';
import { createMetrics } from '../../../src/observability/metrics.ts';
import type { EventDispatcher } from '../../../src/outbox/create-event-dispatcher.ts';
import { createManualClock } from '../../../src/scheduler/create-manual-clock.ts';
import { createMemoryStore } from '../../../src/store/memory/create-memory-store.ts';
import type { Store } from '../../../src/store/store.ts';
import { waitFor } from '../../support/wait-for.ts';

const single = {
  REPLYFLOW_PROVIDER_URL: 'https://api.example.com/v1',
  REPLYFLOW_API_KEY_ID: 'key',
  REPLYFLOW_API_KEY_SECRET: 'secret',
  REPLYFLOW_LOCATION: 'paris',
  REPLYFLOW_EVENTS_URL: 'https://booking.example.com/replyflow',
};
const secret = newEventSecret();

function failure(env: NodeJS.ProcessEnv): Promise<string> {
  return loadConfig(env).then(
    () => 'accepted',
    (error: Error) => error.message,
  );
}

async function configFile(events: unknown[]): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'rf-retry-for-')), 'replyflow.config.json');
  const location = {
    name: 'paris',
    providerUrl: 'https://api.example.com/v1',
    apiKeyId: 'k',
    apiKeySecret: 's',
    events,
  };
  await writeFile(file, JSON.stringify({ locations: [location] }));
  return file;
}

describe('the retry window of event deliveries', () => {
  it('reads REPLYFLOW_EVENTS_RETRY_FOR as the env subscription window', async () => {
    const config = await loadConfig({
      ...single,
      REPLYFLOW_EVENTS_SECRET: secret,
      REPLYFLOW_EVENTS_RETRY_FOR: '48h',
    });
    expect(config.locations[0]?.events).toEqual([
      { url: single.REPLYFLOW_EVENTS_URL, secret, retryFor: '48h' },
    ]);
  });

  it('refuses a window that is not a duration from 1m to 30d, naming the variable', async () => {
    for (const bad of ['forever', '30s', '31d', '-1h']) {
      const message = await failure({
        ...single,
        REPLYFLOW_EVENTS_SECRET: secret,
        REPLYFLOW_EVENTS_RETRY_FOR: bad,
      });
      expect(message, bad).toMatch(
        /REPLYFLOW_EVENTS_RETRY_FOR must be a duration from 1m to 30d, such as 24h or 3d/,
      );
    }
  });

  it('takes retryFor per subscription in the config file, the variable for those without one', async () => {
    const file = await configFile([
      { url: 'https://crm.example.com/in', secret, retryFor: '3d' },
      { url: 'https://booking.example.com/in', secret },
    ]);
    const config = await loadConfig({ REPLYFLOW_CONFIG: file, REPLYFLOW_EVENTS_RETRY_FOR: '2h' });
    expect(config.locations[0]?.events?.map((s) => s.retryFor)).toEqual(['3d', '2h']);
    const without = await loadConfig({ REPLYFLOW_CONFIG: file });
    expect(without.locations[0]?.events?.map((s) => s.retryFor)).toEqual(['3d', undefined]);
  });

  it('names the bad retryFor of a subscription in the config file', async () => {
    const file = await configFile([{ url: 'https://crm.example.com/in', secret, retryFor: '1y' }]);
    expect(await failure({ REPLYFLOW_CONFIG: file })).toMatch(
      /locations\.0\.events\.0\.retryFor must be a duration from 1m to 30d.*not '1y'/,
    );
  });
});

describe('createEventDelivery and the retry window', () => {
  let dispatcher: EventDispatcher | undefined;
  afterEach(() => dispatcher?.stop());

  const t0 = 1_763_700_000_000;
  const phone = '33612345678';
  const failing: DeliveryAttempt = {
    ok: false,
    status: 503,
    error: 'http_503',
    retryable: true,
    durationMs: 1,
  };

  async function queue(store: Store): Promise<void> {
    const event: OutboundEvent = {
      id: 'evt_e-1_0',
      type: 'conversation.started',
      timestamp: new Date(t0).toISOString(),
      data: {
        location: 'paris',
        bot: 'survey',
        botVersion: 'v',
        runId: 'r',
        phone,
        maskedPhone: '336•••••678',
        payload: {},
      },
    };
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
    const step = { eventId: 'e-1', expectedSeq: 0, record: null, outbound: [], events: [event] };
    expect(await store.commitStep(claim!, step, t0)).toMatchObject({ ok: true });
  }

  it("gives a subscription up once its retryFor is over, from the config's duration", async () => {
    const store = createMemoryStore({ partitions: 2 });
    await queue(store);
    const clock = createManualClock(t0);
    const file = await configFile([{ url: 'https://crm.example.com/in', secret, retryFor: '1m' }]);
    const config = await loadConfig({ REPLYFLOW_CONFIG: file });
    let posts = 0;
    const delivery = createEventDelivery({
      locations: config.locations,
      store,
      clock,
      logger: pino({ level: 'silent' }),
      metrics: createMetrics(),
      sender: true,
      leaseMs: 30_000,
      overrides: {
        pollMs: 1,
        random: () => 1,
        post: async () => {
          posts += 1;
          return failing;
        },
      },
    });
    dispatcher = delivery.dispatcher;
    dispatcher?.start();
    // Retried at 1 s, 2 s, 4 s… after each round (full jitter drawn at its ceiling): the round
    // whose next try would fall past t0 + 1 min gives the subscription up.
    for (let round = 1; ; round++) {
      await waitFor(() => posts === round || undefined);
      const [queued] = await store.listEvents({ limit: 1 });
      if (!queued) break;
      clock.set(queued.dueAt!);
    }
    const [dead] = await store.listEvents({ failed: true, limit: 1 });
    expect(dead?.reason).toBe('retries_exhausted:http_503 from crm.example.com');
    // Rounds at 0, 1, 3, 7, 15, 31 s; the next would be at 63 s.
    expect(posts).toBe(6);
    expect(clock.now() - t0).toBe(31_000);
  });
});
