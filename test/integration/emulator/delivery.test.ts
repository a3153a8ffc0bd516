import { afterEach, describe, expect, it } from 'vitest';
import type { DeliveryLogEntry } from '../../../src/emulator/index.ts';
import { notificationSchema } from '../../../src/provider/schemas/notification.ts';
import { waitFor } from '../../support/wait-for.ts';
import {
  type Responder,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../../support/webhook-receiver.ts';
import { mobile, startTestEmulator, type TestEmulator } from './harness.ts';

describe('webhook delivery rules (spec §6, §8)', () => {
  let emulator: TestEmulator;
  let receiver: WebhookReceiver;
  afterEach(async () => {
    await emulator.close();
    await receiver.close();
  });

  /**
   * An emulator whose paris webhook (sms.status) is `respond`. The handset of `mobile()` is
   * silent, so an SMS to it makes exactly one notification: 'sent'.
   */
  async function start(respond: Responder, options: Parameters<typeof startTestEmulator>[0] = {}) {
    emulator = await startTestEmulator(options);
    receiver = await startWebhookReceiver(respond);
    await emulator.api('POST', '/webhooks', { url: receiver.url, events: ['sms.status'] });
    await emulator.control('PUT', `/outcomes/${mobile()}`, { outcome: 'silent' });
  }

  async function log(notificationId?: string): Promise<DeliveryLogEntry[]> {
    const query = notificationId ? `?notificationId=${notificationId}` : '';
    return (await emulator.control('GET', `/deliveries${query}`)).body;
  }

  function notificationIds(): string[] {
    return receiver.received.map((request) => notificationSchema.parse(request.body).id);
  }

  it('counts an answer after the 4 s deadline as a time-out and retries with the same notification id', async () => {
    const timeScale = 0.05;
    // The first answer comes after 5 s (scaled), the retry is answered at once.
    await start(
      (_request, count) => ({ status: 200, delayMs: count === 1 ? 5000 * timeScale : 0 }),
      {
        timeScale,
        webhookRetry: {}, // the spec's 4 s deadline, the emulator's default
      },
    );
    await emulator.send({ to: mobile(), body: 'Hi' });
    await waitFor(async () => (await log()).some((entry) => entry.outcome === 'ok'));
    const [first, second, ...more] = await log();
    expect(first).toMatchObject({ attempt: 1, outcome: 'timeout', retryInMs: 1000 * timeScale });
    expect(first?.durationMs).toBeGreaterThanOrEqual(4000 * timeScale - 1);
    expect(second).toMatchObject({
      attempt: 2,
      outcome: 'ok',
      httpStatus: 200,
      notificationId: first?.notificationId,
    });
    expect(more).toEqual([]);
    expect(notificationIds()).toEqual([first?.notificationId, first?.notificationId]);
  });

  it('attempts a notification that always fails exactly 11 times, with exponential backoff, then drops it', async () => {
    // A short backoff keeps the test near 2 s; a 200 ms deadline lets a loaded machine answer.
    const timeScale = 0.01;
    const baseMs = 200;
    await start(() => 500, { timeScale, webhookRetry: { baseMs, timeoutMs: 20_000 } });
    await emulator.send({ to: mobile(), body: 'Hi' });
    await waitFor(async () => (await log()).some((entry) => entry.outcome === 'discarded'), {
      timeout: 10_000,
    });
    const entries = await log();
    const attempts = entries.filter((entry) => entry.outcome !== 'discarded');
    expect(attempts.map((entry) => entry.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(
      attempts.every((entry) => entry.outcome === 'http_error' && entry.httpStatus === 500),
    ).toBe(true);
    expect(entries.at(-1)).toMatchObject({ outcome: 'discarded', attempt: 11 });
    // Retry n (n = 0 first) waits baseMs × 2^n × timeScale.
    expect(attempts.map((entry) => entry.retryInMs)).toEqual([
      ...[1, 2, 4, 8, 16, 32, 64, 128, 256, 512].map((f) => baseMs * f * timeScale),
      undefined,
    ]);
    expect(receiver.received).toHaveLength(11);
    expect(new Set(notificationIds()).size).toBe(1);
    for (let n = 0; n < 10; n++) {
      const gap = (receiver.received[n + 1]?.at ?? 0) - (receiver.received[n]?.at ?? 0);
      expect(gap).toBeGreaterThanOrEqual(baseMs * 2 ** n * timeScale - 1);
    }
  });

  it('retries a 4xx answer too: only 2xx is a success', async () => {
    await start((_request, count) => (count === 1 ? 404 : 204));
    await emulator.send({ to: mobile(), body: 'Hi' });
    await waitFor(async () => (await log()).some((entry) => entry.outcome === 'ok'));
    expect((await log()).map((entry) => [entry.outcome, entry.httpStatus])).toEqual([
      ['http_error', 404],
      ['ok', 204],
    ]);
  });

  it('logs a refused connection as a network error and retries it, up to maxRetries', async () => {
    await start(() => 200, {
      webhookRetry: { maxRetries: 2 },
    });
    const closedUrl = receiver.url;
    await receiver.close();
    await emulator.send({ to: mobile(), body: 'Hi' });
    await waitFor(async () => (await log()).some((entry) => entry.outcome === 'discarded'));
    const entries = await log();
    expect(entries.map((entry) => entry.outcome)).toEqual([
      'network_error',
      'network_error',
      'network_error',
      'discarded',
    ]);
    expect(entries[0]).toMatchObject({ url: closedUrl, error: expect.any(String) });
  });

  it("injects 'fail' faults: the attempts are not sent, logged injected_failure, and retried", async () => {
    await start(() => 200);
    await emulator.control('POST', '/webhook-faults', { count: 2, mode: 'fail' });
    const sms = await emulator.send({ to: mobile(), body: 'Hi' });
    await waitFor(async () => (await log()).some((entry) => entry.outcome === 'ok'));
    const entries = await log();
    expect(entries.map((entry) => entry.outcome)).toEqual([
      'injected_failure',
      'injected_failure',
      'ok',
    ]);
    expect(new Set(entries.map((entry) => entry.notificationId)).size).toBe(1);
    expect(receiver.received).toHaveLength(1);
    expect(notificationSchema.parse(receiver.received[0]?.body).data[0]).toMatchObject({
      id: sms.id,
    });
  });

  it("injects 'hang' faults: the receiver gets the notification, the attempt times out, and it gets it again", async () => {
    await start(() => 200);
    await emulator.control('POST', '/webhook-faults', {
      count: 1,
      mode: 'hang',
      url: receiver.url,
    });
    await emulator.send({ to: mobile(), body: 'Hi' });
    await waitFor(async () => (await log()).some((entry) => entry.outcome === 'ok'));
    expect((await log()).map((entry) => entry.outcome)).toEqual(['timeout', 'ok']);
    const ids = notificationIds();
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBe(ids[1]);
  });

  it('applies a url-scoped fault only to that url', async () => {
    await start(() => 200);
    await emulator.control('POST', '/webhook-faults', {
      count: 5,
      mode: 'fail',
      url: 'http://127.0.0.1:1/other',
    });
    await emulator.send({ to: mobile(), body: 'Hi' });
    await waitFor(async () => (await log()).length >= 1);
    expect((await log()).map((entry) => entry.outcome)).toEqual(['ok']);
    expect((await emulator.control('GET', '/webhook-faults')).body).toEqual([
      { count: 5, mode: 'fail', url: 'http://127.0.0.1:1/other' },
    ]);
  });

  it('filters the delivery log by notification id', async () => {
    await start(() => 200);
    await emulator.send({ to: mobile(), body: 'Hi' });
    await waitFor(async () => (await log()).length >= 1);
    const [first] = notificationIds();
    const entries = await log(first);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      notificationId: first,
      outcome: 'ok',
      attempt: 1,
      event: 'sms.status',
    });
  });
});
