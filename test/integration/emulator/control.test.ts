import { createHook } from 'node:async_hooks';
import { createServer } from 'node:http';
import express from 'express';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createEmulatorApp,
  type RequestLogEntry,
  type StoredSms,
} from '../../../src/emulator/index.ts';
import { apiErrorBodySchema } from '../../../src/provider/schemas/api-error.ts';
import { waitFor } from '../../support/wait-for.ts';
import { startWebhookReceiver } from '../../support/webhook-receiver.ts';
import { lyon, mobile, paris, startTestEmulator, type TestEmulator } from './harness.ts';

describe('control API (/_emulator)', () => {
  let emulator: TestEmulator;
  beforeEach(async () => {
    emulator = await startTestEmulator();
  });
  afterEach(() => emulator.close());

  async function messages(query = ''): Promise<StoredSms[]> {
    return (await emulator.control('GET', `/messages${query}`)).body;
  }

  it('lists messages oldest first with their location, filtered by to and location', async () => {
    const a = await emulator.send({ to: mobile(1), body: 'a' }, paris);
    const b = await emulator.send({ to: mobile(2), body: 'b' }, lyon);
    const c = await emulator.send({ to: mobile(1), body: 'c' }, lyon);
    expect((await messages()).map((m) => [m.id, m.location])).toEqual([
      [a.id, 'paris'],
      [b.id, 'lyon'],
      [c.id, 'lyon'],
    ]);
    expect((await messages(`?to=${mobile(1)}`)).map((m) => m.id)).toEqual([a.id, c.id]);
    expect((await messages(`?to=${mobile(1)}&location=lyon`)).map((m) => m.id)).toEqual([c.id]);
    expect((await messages())[0]).toMatchObject({ body: 'a', to: mobile(1), parts: 1 });
  });

  it('sets and reads a location balance', async () => {
    expect(
      (await emulator.control('PUT', '/locations/paris/balance', { balance: 3.5 })).status,
    ).toBe(200);
    expect((await emulator.control('GET', '/locations/paris/balance')).body).toEqual({
      location: 'paris',
      balance: 3.5,
    });
    expect(
      (await emulator.control('PUT', '/locations/paris/balance', { balance: 'lots' })).status,
    ).toBe(400);
  });

  it('refuses an unknown outcome', async () => {
    const answer = await emulator.control('PUT', `/outcomes/${mobile()}`, { outcome: 'lost' });
    expect(answer.status).toBe(400);
    expect(apiErrorBodySchema.parse(answer.body).error.field).toBe('outcome');
  });

  describe('replies', () => {
    it('answers 404 when no message reached the phone, pending ones included', async () => {
      expect(
        (await emulator.control('POST', '/replies', { from: mobile(), body: 'hi' })).status,
      ).toBe(404);
      await emulator.control('PUT', '/outcomes/33612349999', { outcome: 'invalid' });
      const errored = await emulator.send({ to: '33612349999', body: 'Hi' });
      await emulator.waitForStatus(errored.id, 'errored');
      const answer = await emulator.control('POST', '/replies', {
        from: '33612349999',
        body: 'hi',
      });
      expect(answer.status).toBe(404);
      expect(apiErrorBodySchema.parse(answer.body).error.code).toBe('NOT_FOUND');
    });

    it('correlates with the last short-code message to that phone by default', async () => {
      const older = await emulator.send({ to: mobile(), body: 'first' });
      const newer = await emulator.send({ to: mobile(), body: 'second' });
      const custom = await emulator.send({ from: 'Clinic', to: mobile(), body: 'third' });
      await emulator.waitForStatus(custom.id, 'delivered');
      const answer = await emulator.control('POST', '/replies', { from: mobile(), body: 'ok' });
      expect(answer.status).toBe(201);
      expect(answer.body.reply.originSms.id).toBe(newer.id);
      const named = await emulator.control('POST', '/replies', {
        from: mobile(),
        body: 'ok',
        originSmsId: older.id,
      });
      expect(named.body.reply.originSms.id).toBe(older.id);
      const toCustom = await emulator.control('POST', '/replies', {
        from: mobile(),
        body: 'ok',
        originSmsId: custom.id,
      });
      expect(toCustom.status).toBe(200);
      expect(toCustom.body.notified).toBe(false);
    });

    it('looks in the given location only, and in any location without one', async () => {
      const inParis = await emulator.send({ to: mobile(), body: 'paris' }, paris);
      const inLyon = await emulator.send({ to: mobile(), body: 'lyon' }, lyon);
      await emulator.waitForStatus(inLyon.id, 'delivered', lyon);
      await emulator.waitForStatus(inParis.id, 'delivered', paris);
      const paris_ = await emulator.control('POST', '/replies', {
        from: mobile(),
        body: 'x',
        location: 'paris',
      });
      expect(paris_.body).toMatchObject({
        notified: true,
        location: 'paris',
        reply: { originSms: { id: inParis.id } },
      });
      const any = await emulator.control('POST', '/replies', { from: mobile(), body: 'x' });
      expect(any.body.reply.originSms.id).toBe(inLyon.id);
      const other = await emulator.control('POST', '/replies', {
        from: mobile(),
        body: 'x',
        location: 'nice',
      });
      expect(other.status).toBe(404);
    });
  });

  describe('endpoint faults', () => {
    it("'before' refuses the request with a 5xx and creates nothing, for count requests", async () => {
      await emulator.control('POST', '/faults', { count: 2 });
      const answers = await Promise.all(
        [1, 2, 3].map(() => emulator.api('POST', '/sms', { to: mobile(), body: 'Hi' })),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([201, 503, 503]);
      const refused = answers.find((a) => a.status === 503);
      expect(apiErrorBodySchema.parse(refused?.body).error).toMatchObject({
        status: 503,
        code: 'SERVICE_UNAVAILABLE',
      });
      expect(await messages()).toHaveLength(1);
    });

    it("'after' creates and processes the SMS but answers the 5xx", async () => {
      const hook = await startWebhookReceiver();
      try {
        await emulator.api('POST', '/webhooks', { url: hook.url, events: ['sms.status'] });
        await emulator.control('POST', '/faults', {
          path: 'POST /sms',
          count: 1,
          status: 502,
          when: 'after',
        });
        const answer = await emulator.api('POST', '/sms', { to: mobile(), body: 'Hi' });
        expect(answer.status).toBe(502);
        expect(apiErrorBodySchema.parse(answer.body).error.status).toBe(502);
        const [created] = await messages();
        expect(created).toBeDefined();
        await emulator.waitForStatus(created?.id ?? '', 'delivered');
        await waitFor(() => hook.received.length >= 2);
      } finally {
        await hook.close();
      }
    });

    it('strikes a random rate of requests, on the path it names, until cleared', async () => {
      await emulator.control('POST', '/faults', { path: 'GET /sms/:id', rate: 1, status: 500 });
      const sms = await emulator.send({ to: mobile(), body: 'Hi' });
      expect((await emulator.api('GET', `/sms/${sms.id}`)).status).toBe(500);
      expect((await emulator.api('GET', `/sms/${sms.id}`)).status).toBe(500);
      expect((await emulator.api('GET', '/webhooks')).status).toBe(200);
      expect((await emulator.control('DELETE', '/faults')).status).toBe(204);
      expect((await emulator.api('GET', `/sms/${sms.id}`)).status).toBe(200);
      await emulator.control('POST', '/faults', { rate: 0 });
      expect((await emulator.api('POST', '/sms', { to: mobile(), body: 'Hi' })).status).toBe(201);
    });

    it('refuses a fault on a malformed path', async () => {
      const answer = await emulator.control('POST', '/faults', { path: '/sms' });
      expect(apiErrorBodySchema.parse(answer.body).error).toMatchObject({
        status: 400,
        field: 'path',
      });
    });
  });

  it('logs every /v1 request with its time, method, path, key id and status', async () => {
    const before = Date.now();
    await emulator.send({ to: mobile(), body: 'Hi' });
    await emulator.api('POST', '/sms', { to: '33123456789', body: 'Hi' });
    await emulator.api('GET', '/webhooks', undefined, null);
    const log: RequestLogEntry[] = (await emulator.control('GET', '/requests')).body;
    expect(log.map(({ at: _at, ...entry }) => entry)).toEqual([
      { method: 'POST', path: '/v1/sms', keyId: paris.id, status: 201 },
      { method: 'POST', path: '/v1/sms', keyId: paris.id, status: 400 },
      { method: 'GET', path: '/v1/webhooks', status: 401 },
    ]);
    expect(log.every((entry) => entry.at >= before && entry.at <= Date.now())).toBe(true);
    const posts = (await emulator.control('GET', '/requests?method=POST&path=/v1/sms')).body;
    expect(posts).toHaveLength(2);
  });

  it('streams what happens as Server-Sent Events', async () => {
    const hook = await startWebhookReceiver();
    const stop = new AbortController();
    try {
      await emulator.api('POST', '/webhooks', {
        url: hook.url,
        events: ['sms.status', 'sms.reply'],
      });
      const stream = await fetch(`${emulator.url}/_emulator/events`, { signal: stop.signal });
      expect(stream.headers.get('content-type')).toContain('text/event-stream');
      const events: StreamedEvent[] = [];
      void readEvents(stream, events);
      const sms = await emulator.send({ to: mobile(), body: 'Hi' });
      await emulator.waitForStatus(sms.id, 'delivered');
      await emulator.control('POST', '/replies', { from: mobile(), body: 'yes' });
      await waitFor(() => events.filter((e) => e.event === 'delivery').length === 3);
      const names = events.map((e) =>
        e.event === 'sms.status' ? `${e.event}:${e.data.status}` : e.event,
      );
      expect(names.filter((n) => n !== 'delivery')).toEqual([
        'sms.created',
        'sms.status:sent',
        'sms.status:delivered',
        'reply',
      ]);
      expect(events[0]?.data.id).toBe(sms.id);
    } finally {
      stop.abort();
      await hook.close();
    }
  });

  it('resets messages, logs, faults, webhooks, groups and balances, keeping the key pairs', async () => {
    await emulator.send({ to: mobile(), body: 'Hi' });
    await emulator.api('POST', '/webhooks', {
      url: 'http://127.0.0.1:9/x',
      events: ['sms.status'],
    });
    await emulator.api('POST', '/groups', { name: 'G' });
    await emulator.control('PUT', '/locations/paris/balance', { balance: 1 });
    await emulator.control('POST', '/faults', { count: 5 });
    await emulator.control('POST', '/webhook-faults', { count: 5, mode: 'fail' });
    await emulator.control('PUT', '/rate-limit', { perSecond: 50 });
    expect((await emulator.control('POST', '/reset')).status).toBe(204);
    expect(await messages()).toEqual([]);
    expect((await emulator.control('GET', '/requests')).body).toEqual([]);
    expect((await emulator.control('GET', '/deliveries')).body).toEqual([]);
    expect((await emulator.control('GET', '/faults')).body).toEqual([]);
    expect((await emulator.control('GET', '/webhook-faults')).body).toEqual([]);
    expect((await emulator.api('GET', '/webhooks')).body).toEqual([]);
    expect((await emulator.api('GET', '/groups')).body).toEqual([]);
    expect((await emulator.control('GET', '/locations/paris/balance')).body.balance).toBe(1000);
    expect((await emulator.api('POST', '/sms', { to: mobile(), body: 'Hi' })).status).toBe(201);
  });

  it('answers 404 with the error body on an unknown control route', async () => {
    const answer = await emulator.control('GET', '/nope');
    expect(answer.status).toBe(404);
    expect(apiErrorBodySchema.parse(answer.body).error.code).toBe('NOT_FOUND');
  });
});

describe('close()', () => {
  it('stops every timer it set and every delivery', async () => {
    // Timers the emulator's own code sets (libraries keep unref'd caches of their own), alive
    // until cleared or fired.
    const live = new Set<number>();
    const tracker = createHook({
      init(asyncId, type) {
        if (type === 'Timeout' && setByEmulator(new Error().stack ?? '')) live.add(asyncId);
      },
      destroy(asyncId) {
        live.delete(asyncId);
      },
    });
    const hook = await startWebhookReceiver(() => ({ status: 200, delayMs: 60_000 }));
    tracker.enable();
    const emulator = await startTestEmulator({
      timeScale: 1,
      lifecycle: { sentAfterMs: 50, reportAfterMs: 60_000 },
    });
    try {
      await emulator.api('POST', '/webhooks', { url: hook.url, events: ['sms.status'] });
      await emulator.send({ to: mobile(), body: 'Hi' });
      // Now the 'sent' notification hangs (a request and its deadline) and the report waits.
      await waitFor(() => hook.received.length === 1);
      expect(live.size).toBeGreaterThanOrEqual(2);
    } finally {
      await emulator.close();
      await hook.close();
    }
    // Destroy hooks of cleared timers run on a later turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    tracker.disable();
    expect(live.size).toBe(0);
  });
});

/** True when the frame that called setTimeout is in src/emulator/. */
function setByEmulator(stack: string): boolean {
  const lines = stack.split('\n');
  const call = lines.findIndex((line) => /at (setTimeout|setInterval) \(node:timers/.test(line));
  return call !== -1 && (lines[call + 1] ?? '').includes('/src/emulator/');
}

interface StreamedEvent {
  event: string;
  data: { id?: string; status?: string };
}

/** Collects the frames of an SSE stream until the test aborts it. */
async function readEvents(response: Response, into: StreamedEvent[]): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      const frames = buffer.split('\n\n');
      buffer = frames.pop() ?? '';
      for (const frame of frames) {
        const event = /^event: (.+)$/m.exec(frame)?.[1];
        const data = /^data: (.+)$/m.exec(frame)?.[1];
        if (event && data) into.push({ event, data: JSON.parse(data) });
      }
    }
  } catch {
    // The test aborts the stream when it is done.
  }
}

describe('createEmulatorApp mounted in another app', () => {
  it('serves /v1 and /_emulator and leaves every other path to the host', async () => {
    const emulator = createEmulatorApp({ keyPairs: [paris] });
    const host = express();
    host.use(emulator.app);
    host.get('/hello', (_req, res) => {
      res.send('host');
    });
    const server = createServer(host);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const hello = await fetch(`http://127.0.0.1:${port}/hello`);
      expect(await hello.text()).toBe('host');
      expect((await fetch(`http://127.0.0.1:${port}/v1/webhooks`)).status).toBe(401);
      expect((await fetch(`http://127.0.0.1:${port}/_emulator/messages`)).status).toBe(200);
    } finally {
      await emulator.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
