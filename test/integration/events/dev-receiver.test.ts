import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/app/config.ts';
import type { ReceivedEvent } from '../../../src/app/dev-phone/dev-receiver.ts';
import { startDev } from '../../../src/app/start-dev.ts';
import { newEventSecret } from '../../../src/events/event-secret.ts';
import type { OutboundEvent } from '../../../src/events/outbound-event.ts';
import { signWebhook } from '../../../src/events/sign-webhook.ts';
import { signedEvent } from '../../support/event-receiver.ts';
import { freePort } from '../../support/free-port.ts';
import { requestWithHost } from '../../support/request-with-host.ts';
import { waitFor } from '../../support/wait-for.ts';

/** The developer's own receiver, on loopback: REPLYFLOW_EVENTS_URL with no ALLOW_PRIVATE. */
async function ownReceiver(secret: string) {
  const accepted: OutboundEvent[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const event = signedEvent(secret, req, Buffer.concat(chunks), res);
      if (!event) return;
      accepted.push(event);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/booking`,
    accepted,
    close: async () => {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
}

describe('the dev receiver (replyflow dev)', () => {
  let dev: Awaited<ReturnType<typeof startDev>>;
  let own: Awaited<ReturnType<typeof ownReceiver>>;
  const secret = newEventSecret();
  const phone = '33611229988';

  beforeAll(async () => {
    own = await ownReceiver(secret);
    const config = await loadConfig({
      PORT: String(await freePort()),
      REPLYFLOW_BOTS_DIR: resolve('bots'),
      LOG_LEVEL: 'silent',
      REPLYFLOW_EVENTS_URL: own.url,
      REPLYFLOW_EVENTS_SECRET: secret,
    });
    dev = await startDev(config, pino({ level: 'silent' }));
  });
  afterAll(async () => {
    await dev?.close();
    await own?.close();
  });

  const received = async (query = ''): Promise<{ events: ReceivedEvent[]; refused: number }> => {
    const res = await fetch(`${dev.url}/dev/receiver/events${query}`);
    expect(res.status).toBe(200);
    return (await res.json()) as { events: ReceivedEvent[]; refused: number };
  };

  it('shows what the appointment bot sent when the person answers "oui", signature verified', {
    timeout: 60_000,
  }, async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${dev.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const started = await post('/dev/conversations', {
      bot: 'appointment',
      phone,
      input: { name: 'Ana', at: '2030-12-06T10:00:00+01:00', place: 'Cabinet' },
    });
    expect(started.status).toBe(202);
    // The handset can answer once the question reached it.
    await waitFor(async () => (await post(`/dev/phones/${phone}/messages`, { body: 'oui' })).ok, {
      timeout: 20_000,
      message: 'the person answers oui',
    });
    const confirmed = await waitFor(
      async () =>
        (await received('?bot=appointment')).events.find((e) => e.type === 'appointment.confirmed'),
      { timeout: 20_000, message: 'appointment.confirmed at the dev receiver' },
    );
    expect(confirmed).toMatchObject({
      bot: 'appointment',
      location: 'default',
      maskedPhone: '336•••••988',
      copies: 1,
      event: { type: 'appointment.confirmed', data: { phone, payload: expect.any(Object) } },
    });
    // Newest first, and only the bot asked for.
    const { events, refused } = await received('?bot=appointment');
    expect(refused).toBe(0);
    expect(events[0]?.receivedAt).toBeGreaterThanOrEqual(events.at(-1)?.receivedAt ?? 0);
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['conversation.started', 'appointment.confirmed']),
    );
    expect((await received('?bot=nobody')).events).toEqual([]);

    // The developer's own receiver on loopback is reached in dev (private addresses allowed),
    // and its answer shows beside the event.
    await waitFor(() => own.accepted.some((e) => e.id === confirmed.id) || undefined, {
      timeout: 20_000,
      message: "the developer's receiver gets appointment.confirmed",
    });
    const shown = await waitFor(
      async () =>
        (await received('?bot=appointment')).events.find(
          (e) => e.id === confirmed.id && e.answers.length > 0,
        ),
      { message: "the developer's receiver's answer noted" },
    );
    expect(shown.answers).toEqual([
      expect.objectContaining({ receiver: new URL(own.url).host, ok: true, status: 204 }),
    ]);
  });

  it('refuses a delivery whose signature does not verify, and keeps nothing of it', async () => {
    const event = { id: 'evt_forged_0', type: 'optout', timestamp: new Date().toISOString() };
    const body = JSON.stringify(event);
    const headers = signWebhook(newEventSecret(), event.id, Math.floor(Date.now() / 1000), body);
    const res = await fetch(`${dev.url}/dev/receiver`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { reason: string }).reason).toBe('bad_signature');
    const after = await received();
    expect(after.refused).toBe(1);
    expect(after.events.some((e) => e.id === event.id)).toBe(false);
  });

  it('answers only requests addressed to this machine, as every dev route', async () => {
    const listing = await requestWithHost(`${dev.url}/dev/receiver/events`, 'evil.example');
    expect(listing.status).toBe(403);
    const posted = await requestWithHost(`${dev.url}/dev/receiver`, 'evil.example', {
      method: 'POST',
      body: {},
    });
    expect(posted.status).toBe(403);
  });
});
