import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApp } from '../../../src/app/create-http-app.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { createMetrics } from '../../../src/observability/metrics.ts';
import { systemClock } from '../../../src/scheduler/clock.ts';
import { createManualClock } from '../../../src/scheduler/create-manual-clock.ts';
import { activeCounters } from '../../../src/stats/counter-names.ts';
import { createMemoryStore } from '../../../src/store/memory/create-memory-store.ts';
import reminder from '../../fixtures/bots/reminder-bot.ts';
import {
  location,
  type ReplyLoop,
  replyNotification,
  startReplyLoop,
} from '../../support/reply-loop.ts';
import { type Scrape, scrapeMetrics } from '../../support/scrape-metrics.ts';
import { waitFor } from '../../support/wait-for.ts';

const registry = createBotRegistry([{ bot: reminder, file: 'reminder-bot.ts' }]);
const greeting = 'Please confirm your appointment: reply YES.';

describe('GET /metrics after a conversation, a failed send, a retry and a timer', () => {
  let loop: ReplyLoop;
  const clock = createManualClock(Date.parse('2026-11-21T09:00:00Z'));
  const scrape = () => scrapeMetrics(`${loop.app.url}/metrics`);
  /** Scrapes until `check` holds (the store gauges are sampled at most once a second). */
  const scrapeUntil = (check: (s: Scrape) => boolean, message: string) =>
    waitFor(
      async () => {
        const s = await scrape();
        return check(s) && s;
      },
      { timeout: 5_000, interval: 100, message },
    ).catch(async (error: unknown) => {
      const s = await scrape();
      const lines = s.text
        .split('\n')
        .filter((l) => l.startsWith('replyflow_') && !l.includes('_bucket'));
      throw new Error(`${(error as Error).message}\n${lines.join('\n')}`);
    });
  beforeAll(async () => {
    // No in-doubt grace: the injected 503 is retried at once (the in-doubt path has its own case).
    loop = await startReplyLoop({ registry, clock, store: 'redis', inDoubtGraceMs: 0 });
  });
  afterAll(() => loop?.close());

  it('moves each named series', async () => {
    const before = await scrape();
    for (const result of ['sent', 'failed', 'retry', 'suppressed', 'in_doubt', 'loop_guard']) {
      expect(before.text).toContain(`replyflow_sends_total{result="${result}"} 0`);
    }
    expect(before.text).toContain('nodejs_eventloop_lag_seconds');

    // The first POST /sms fails with a 503: the greeting waits in the outbox for its retry,
    // which the manual clock holds back.
    await fetch(`${loop.emulator.url}/_emulator/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ path: 'POST /sms', count: 1, status: 503 }),
    });
    const phone = '33612340001';
    await loop.start(phone, 'reminder');
    const waiting = await scrapeUntil(
      (s) =>
        s.value('replyflow_sends_total', { result: 'retry' }) === 1 &&
        s.value('replyflow_outbox_depth') === 1,
      'a retry, and the greeting waiting in the outbox',
    );
    expect(waiting.value('replyflow_turns_total', { bot: 'reminder', outcome: 'start' })).toBe(1);
    expect(waiting.value('replyflow_step_duration_seconds_count')).toBe(1);
    expect(
      waiting.value('replyflow_conversations_active', { bot: 'reminder', state: 'waiting' }),
    ).toBe(1);
    expect(waiting.value('replyflow_send_duration_seconds_count')).toBe(1);

    clock.advance(60_000);
    expect(await loop.waitForBodies(phone, 1)).toEqual([greeting]);
    const sent = await scrapeUntil(
      (s) => s.value('replyflow_outbox_depth') === 0,
      'the outbox empty again',
    );
    expect(sent.value('replyflow_sends_total', { result: 'sent' })).toBe(1);
    expect(sent.value('replyflow_send_duration_seconds_count')).toBe(2);

    // A timer: 25 h later the reminder fires.
    clock.advance(25 * 3_600_000);
    expect(await loop.app.fireDueTimers?.()).toBe(1);
    await loop.waitForBodies(phone, 2);
    const reminded = await scrapeUntil(
      (s) =>
        s.value('replyflow_conversations_active', { bot: 'reminder', state: 'reminded' }) === 1,
      'the conversation in state reminded',
    );
    expect(reminded.value('replyflow_timers_fired_total')).toBe(1);
    // The timer, and the delivery statuses the emulator reported.
    expect(
      reminded.value('replyflow_turns_total', { bot: 'reminder', outcome: 'deliver' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      reminded.value('replyflow_conversations_active', { bot: 'reminder', state: 'waiting' }),
    ).toBe(0);

    // Notifications: a reply (it confirms and ends the conversation), the same again, and a bad one.
    expect(await loop.notify(replyNotification('n-yes', phone, 'YES'))).toBe(200);
    expect(await loop.notify(replyNotification('n-yes', phone, 'YES'))).toBe(200);
    expect(await loop.notify('{not json')).toBe(400);
    const notified = await scrapeUntil(
      (s) =>
        s.value('replyflow_dead_letters') === 1 &&
        s.value('replyflow_conversations_active', { bot: 'reminder', state: 'reminded' }) === 0,
      'the dead letter counted and the conversation over',
    );
    expect(
      notified.value('replyflow_notifications_total', { type: 'reply', outcome: 'accepted' }),
    ).toBe(1);
    expect(
      notified.value('replyflow_notifications_total', { type: 'reply', outcome: 'duplicate' }),
    ).toBe(1);
    expect(
      notified.value('replyflow_notifications_total', { type: 'unknown', outcome: 'rejected' }),
    ).toBe(1);
    // These three, and the statuses the emulator posted.
    expect(notified.value('replyflow_ingest_duration_seconds_count')).toBeGreaterThanOrEqual(3);
    expect(
      notified.value('replyflow_notifications_total', { type: 'status', outcome: 'accepted' }),
    ).toBeGreaterThanOrEqual(1);

    // A send that fails for good: a landline cannot receive an SMS.
    await loop.start('33140000002', 'reminder');
    await scrapeUntil(
      (s) => s.value('replyflow_sends_total', { result: 'failed' }) === 1,
      'a send failed for good',
    );
    // `suppressed`, `in_doubt` and `loop_guard` are moved by the opt-out and in-doubt paths;
    // their tests add their cases here.
  }, 30_000);

  it('reports every active conversation from the counters, not a sample (the gauge once stopped at 1,000)', async () => {
    const name = activeCounters(location, 'reminder');
    const before = (await scrape()).value('replyflow_conversations_active', {
      bot: 'reminder',
      state: 'waiting',
    });
    await loop.store.adjustCounters([{ name, field: 'waiting', by: 2_500, ttlMs: 0 }]);
    try {
      await scrapeUntil(
        (s) =>
          s.value('replyflow_conversations_active', { bot: 'reminder', state: 'waiting' }) ===
          (before ?? 0) + 2_500,
        '2,500 more conversations waiting, all of them counted',
      );
    } finally {
      await loop.store.adjustCounters([{ name, field: 'waiting', by: -2_500, ttlMs: 0 }]);
    }
  });
});

describe('the admin token on /metrics', () => {
  it('asks for the token on /metrics only, compares it whole, and leaves /healthz and /readyz open', async () => {
    const token = 'metrics-5b8e2d71c4a09f36e1d7b3c85a2f0e94';
    const store = createMemoryStore({});
    const app = createHttpApp({
      store,
      clock: systemClock,
      logger: pino({ level: 'silent' }),
      secrets: new Map(),
      ops: { store, registry, draining: () => false, metrics: createMetrics(), adminToken: token },
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const metricsWith = (authorization?: string) =>
        fetch(`${base}/metrics`, authorization ? { headers: { authorization } } : {});
      for (const wrong of [
        undefined,
        `Bearer ${token.slice(0, -1)}`,
        `Bearer ${token}x`,
        token,
        'Bearer ',
      ]) {
        const res = await metricsWith(wrong);
        expect(res.status, String(wrong)).toBe(401);
        expect(await res.text()).not.toContain('replyflow_');
      }
      const res = await metricsWith(`Bearer ${token}`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('replyflow_sends_total');
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      expect((await fetch(`${base}/healthz`)).headers.get('x-powered-by')).toBeNull();
    } finally {
      server.close();
    }
  });
});
