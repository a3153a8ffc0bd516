import { networkInterfaces } from 'node:os';
import { resolve } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/app/config.ts';
import { type RunningDev, startDev } from '../../../src/app/start-dev.ts';
import { requestWithHost } from '../../support/request-with-host.ts';
import { waitFor } from '../../support/wait-for.ts';

async function dev(options: Parameters<typeof startDev>[2] = {}): Promise<RunningDev> {
  const config = await loadConfig({
    PORT: '0',
    REPLYFLOW_BOTS_DIR: resolve('test/fixtures/echo-bot-only'),
    LOG_LEVEL: 'silent',
  });
  return startDev(config, pino({ level: 'silent' }), { watch: false, ...options });
}

const otherAddress = Object.values(networkInterfaces())
  .flat()
  .find((entry) => entry && entry.family === 'IPv4' && !entry.internal)?.address;

const keys = { 'x-api-key-id': 'dev', 'x-api-key-secret': 'dev' };

describe('replyflow dev answers only requests addressed to this machine (DNS rebinding)', () => {
  let running: RunningDev;
  let port: string;
  const phone = '33611220099';
  beforeAll(async () => {
    running = await dev();
    port = new URL(running.url).port;
  });
  afterAll(() => running?.close());

  it('refuses a page of another name with 403 on every route, saying how to allow it, and starts nothing', async () => {
    const evil = `evil.example:${port}`;
    // The webhook too, whose fast path runs before Express.
    const webhook = '/webhooks/default/anything';
    for (const [method, path, body, headers] of [
      ['POST', '/dev/conversations', { bot: 'echo', phone }],
      ['GET', `/dev/phones/${phone}`],
      ['GET', '/dev/state'],
      ['GET', '/dev'],
      ['POST', `/dev/phones/${phone}/messages`, { body: 'ECHO hi' }],
      ['GET', '/_emulator/messages'],
      ['POST', '/_emulator/replies', { from: phone, body: 'hi' }],
      ['POST', '/_emulator/reset'],
      ['GET', '/v1/webhooks', undefined, keys],
      ['POST', '/v1/sms', { to: phone, body: 'hi' }, keys],
      ['POST', webhook, { id: 'n', webhookId: 'w', type: 'sms.reply', data: [] }],
      ['GET', '/admin/conversations'],
      ['GET', '/healthz'],
    ] as const) {
      const answer = await requestWithHost(`${running.url}${path}`, evil, {
        method,
        body,
        headers,
      });
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.body.error, `${method} ${path}`).toMatchObject({
        status: 403,
        code: 'HOST_NOT_ALLOWED',
      });
      expect(answer.body.error.message).toContain(`Host '${evil}' refused`);
      expect(answer.body.error.message).toContain('--allow-host evil.example');
    }
    expect(await running.store.getConversation({ location: 'default', phone })).toBeFalsy();
    expect(running.emulator!.context.messages.list({ to: phone })).toEqual([]);
  });

  it('answers every loopback name and address, with any port', async () => {
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `[::1]:${port}`,
      `127.5.6.7:${port}`,
      `app.localhost:${port}`,
      'LOCALHOST',
      '127.0.0.1',
    ]) {
      const answer = await requestWithHost(`${running.url}/dev/state`, host);
      expect(answer.status, host).toBe(200);
    }
    const started = await requestWithHost(`${running.url}/dev/conversations`, `localhost:${port}`, {
      method: 'POST',
      body: { bot: 'echo', phone },
    });
    expect(started.status).toBe(202);
  });

  it('refuses a wildcard or a name that merely contains a loopback one', async () => {
    for (const host of [
      `0.0.0.0:${port}`,
      `localhost.evil.example:${port}`,
      `127.0.0.1.nip.io:${port}`,
      `[::ffff:7f00:1]:${port}`,
    ]) {
      const answer = await requestWithHost(`${running.url}/dev/state`, host);
      expect(answer.status, host).toBe(403);
    }
  });
});

describe('replyflow dev told to answer other names', () => {
  it('answers the allowed hosts, any case and port, and still refuses the others', async () => {
    const running = await dev({ allowedHosts: ['devbox.lan', '[fd00::7]'] });
    try {
      const port = new URL(running.url).port;
      for (const [host, status] of [
        [`devbox.lan:${port}`, 200],
        ['DevBox.LAN', 200],
        [`[fd00::7]:${port}`, 200],
        [`other.lan:${port}`, 403],
      ] as const) {
        const answer = await requestWithHost(`${running.url}/dev/state`, host);
        expect(answer.status, host).toBe(status);
      }
    } finally {
      await running.close();
    }
  });

  it('on 0.0.0.0 answers loopback names only, and its own webhook still gets the replies', async () => {
    const running = await dev({ host: '0.0.0.0' });
    try {
      const port = new URL(running.url).port;
      const at = (host: string, path: string, options: Parameters<typeof requestWithHost>[2]) =>
        requestWithHost(`http://127.0.0.1:${port}${path}`, host, options);
      expect((await at(`0.0.0.0:${port}`, '/dev/state', {})).status).toBe(403);
      const phone = '33611220098';
      const local = `127.0.0.1:${port}`;
      expect(
        (await at(local, '/dev/conversations', { method: 'POST', body: { bot: 'echo', phone } }))
          .status,
      ).toBe(202);
      await waitFor(
        () =>
          running
            .emulator!.context.messages.list({ to: phone })
            .some((sms) => sms.status === 'delivered'),
        { message: 'the greeting is delivered', timeout: 15_000 },
      );
      expect(
        (await at(local, `/dev/phones/${phone}/messages`, { method: 'POST', body: { body: 'hi' } }))
          .status,
      ).toBeLessThan(300);
      // The greeting, then the echo of the reply: the reply reached dev's own webhook.
      await waitFor(
        () =>
          running
            .emulator!.context.messages.list({ to: phone })
            .some((sms) => sms.body === '#1: hi'),
        { message: 'the bot echoes the reply', timeout: 15_000 },
      );
      // Exposed, the embedded emulator calls no other address of this machine or its network.
      const other = await at(local, '/v1/webhooks', {
        method: 'POST',
        headers: keys,
        body: { url: 'http://169.254.169.254/latest', events: ['sms.reply'] },
      });
      expect(other.status).toBe(400);
      expect(other.body.error.message).toContain('a link-local address');
    } finally {
      await running.close();
    }
  });

  it('on a specific address answers that address too, and calls its own webhook there', async (context) => {
    if (!otherAddress) {
      context.skip('this machine has no non-loopback IPv4 address');
      return;
    }
    const running = await dev({ host: otherAddress });
    try {
      const port = new URL(running.url).port;
      const here = `${otherAddress}:${port}`;
      expect((await requestWithHost(`${running.url}/dev/state`, here)).status).toBe(200);
      expect(
        (await requestWithHost(`${running.url}/dev/state`, `evil.example:${port}`)).status,
      ).toBe(403);
      const phone = '33611220097';
      const started = await requestWithHost(`${running.url}/dev/conversations`, here, {
        method: 'POST',
        body: { bot: 'echo', phone },
      });
      expect(started.status).toBe(202);
      // Its status notifications come back through the webhook on that address.
      await waitFor(
        async () =>
          (await requestWithHost(`${running.url}/_emulator/deliveries`, here)).body.some(
            (entry: { outcome: string }) => entry.outcome === 'ok',
          ),
        { message: 'a delivery to its own webhook succeeds', timeout: 15_000 },
      );
    } finally {
      await running.close();
    }
  });
});
