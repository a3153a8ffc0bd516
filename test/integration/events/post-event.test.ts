import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { newEventSecret } from '../../../src/events/event-secret.ts';
import type { EventSubscription, OutboundEvent } from '../../../src/events/outbound-event.ts';
import { postEvent } from '../../../src/events/post-event.ts';
import { verifyWebhook } from '../../../src/events/verify-webhook.ts';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A receiver on loopback answering with `answer`; `received` holds what came. */
async function receiver(
  answer: (res: ServerResponse) => void,
  host = '127.0.0.1',
): Promise<{ port: number; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      answer(res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { port: (server.address() as AddressInfo).port, received };
}

const secret = newEventSecret();
const event: OutboundEvent = {
  id: 'evt_1-0_0',
  type: 'appointment.rescheduled',
  timestamp: '2026-03-05T10:00:00.000Z',
  data: {
    location: 'paris',
    bot: 'appointment',
    botVersion: 'v1',
    runId: 'run_1',
    phone: '33612345678',
    maskedPhone: '336•••••678',
    payload: { at: '2026-03-12T14:00:00+01:00' },
  },
};

function to(url: string, allowPrivateAddresses?: boolean): EventSubscription {
  return { url, secret, ...(allowPrivateAddresses !== undefined && { allowPrivateAddresses }) };
}

describe('postEvent', () => {
  it('POSTs the signed JSON to an allowed loopback receiver, and the signature verifies', async () => {
    const { port, received } = await receiver((res) => res.writeHead(204).end());
    const attempt = await postEvent(to(`http://127.0.0.1:${port}/hook`, true), event);
    expect(attempt).toMatchObject({ ok: true, status: 204, retryable: false });
    expect(received).toHaveLength(1);
    const [{ headers, body }] = received as [Received];
    expect(headers['content-type']).toBe('application/json');
    expect(headers['user-agent']).toBe('replyflow');
    expect(headers['webhook-id']).toBe(event.id);
    expect(verifyWebhook(secret, headers, body)).toEqual(event);
  });

  it('allows a private address when the caller says so (dev), whatever the subscription says', async () => {
    const { port } = await receiver((res) => res.writeHead(200).end());
    const attempt = await postEvent(to(`http://127.0.0.1:${port}/`), event, { allowPrivate: true });
    expect(attempt.ok).toBe(true);
  });

  it('refuses loopback at send time without allowPrivateAddresses: 127.0.0.1, localhost, [::1]', async () => {
    const v4 = await receiver((res) => res.writeHead(204).end());
    const v6 = await receiver((res) => res.writeHead(204).end(), '::1').catch(() => undefined);
    const urls = [
      `http://127.0.0.1:${v4.port}/`,
      // localhost is a name: resolved at send time, to 127.0.0.1 (and ::1)
      `http://localhost:${v4.port}/`,
      `http://[::1]:${v6?.port ?? v4.port}/`,
    ];
    for (const url of urls) {
      const attempt = await postEvent(to(url, false), event);
      expect(attempt, url).toMatchObject({
        ok: false,
        error: 'refused_private_address',
        retryable: false,
      });
    }
    expect(v4.received).toHaveLength(0);
    expect(v6?.received ?? []).toHaveLength(0);
  });

  it('refuses 10.0.0.0/8 and 169.254.169.254 written as IP literals, before any connection', async () => {
    for (const url of [
      'http://10.0.0.1:8080/hook',
      'https://10.255.1.2/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:10.0.0.1]/hook',
    ]) {
      const attempt = await postEvent(to(url, false), event, { timeoutMs: 2_000 });
      expect(attempt, url).toMatchObject({
        ok: false,
        error: 'refused_private_address',
        retryable: false,
      });
    }
  });

  it('refuses a name that resolves, at send time, to 10.0.0.0/8 or 169.254.169.254', async () => {
    const asked: string[] = [];
    // The names' answers as DNS would give them when the POST goes out.
    const answers: Record<string, Array<{ address: string; family: number }>> = {
      'booking.example.test': [{ address: '10.20.30.40', family: 4 }],
      'metadata.example.test': [{ address: '169.254.169.254', family: 4 }],
      // One inside address among public ones is enough to refuse.
      'mixed.example.test': [
        { address: '93.184.215.14', family: 4 },
        { address: '10.0.0.7', family: 4 },
      ],
    };
    const lookup = ((hostname, _options, callback) => {
      asked.push(hostname);
      const found = answers[hostname];
      if (!found) callback(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }), '', 0);
      else callback(null, found);
    }) as LookupFunction;
    for (const host of Object.keys(answers)) {
      const attempt = await postEvent(to(`https://${host}/hook`, false), event, {
        lookup,
        timeoutMs: 2_000,
      });
      expect(attempt, host).toMatchObject({
        ok: false,
        error: 'refused_private_address',
        retryable: false,
      });
    }
    expect(asked).toEqual(Object.keys(answers));
  });

  it('gives up on a receiver that does not answer in time, as retryable', async () => {
    const { port, received } = await receiver(() => {});
    const attempt = await postEvent(to(`http://127.0.0.1:${port}/`, true), event, {
      timeoutMs: 100,
    });
    expect(attempt).toMatchObject({ ok: false, error: 'timeout', retryable: true });
    expect(received).toHaveLength(1);
  });

  it('retries a 500 and a 429 (with its Retry-After), not a 400', async () => {
    const answers = [500, 400, 429];
    const { port } = await receiver((res) => {
      const status = answers.shift() ?? 500;
      res.writeHead(status, status === 429 ? { 'retry-after': '7' } : {}).end('nope 33612345678');
    });
    const url = `http://127.0.0.1:${port}/`;
    const [first, second, third] = [
      await postEvent(to(url, true), event),
      await postEvent(to(url, true), event),
      await postEvent(to(url, true), event),
    ];
    expect(first).toMatchObject({ ok: false, status: 500, error: 'http_500', retryable: true });
    expect(second).toMatchObject({ ok: false, status: 400, error: 'http_400', retryable: false });
    expect(third).toMatchObject({ status: 429, retryable: true, retryAfterMs: 7_000 });
    expect(JSON.stringify([first, second, third])).not.toContain('33612345678');
  });

  it('does not follow a redirect', async () => {
    const { port, received } = await receiver((res) =>
      res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end(),
    );
    const attempt = await postEvent(to(`http://127.0.0.1:${port}/`, true), event);
    expect(attempt).toMatchObject({ ok: false, status: 302, retryable: false });
    expect(received).toHaveLength(1);
  });

  it('calls a receiver that is gone a connection error, retryable', async () => {
    const { port } = await receiver(() => {});
    for (const server of servers.splice(0)) await new Promise((r) => server.close(r));
    const attempt = await postEvent(to(`http://127.0.0.1:${port}/`, true), event);
    expect(attempt).toMatchObject({ ok: false, error: 'connect_error', retryable: true });
  });
});
