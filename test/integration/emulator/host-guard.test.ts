import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { requestWithHost } from '../../support/request-with-host.ts';
import { waitFor } from '../../support/wait-for.ts';
import { mobile, paris, startTestEmulator, type TestEmulator } from './harness.ts';

const keys = { 'x-api-key-id': paris.id, 'x-api-key-secret': paris.secret };

describe("the emulator's control API (and /v1 on loopback) answers only requests addressed to this machine", () => {
  const running: TestEmulator[] = [];
  afterAll(async () => {
    await Promise.all(running.map((emulator) => emulator.close()));
  });
  const start = async (options: Parameters<typeof startTestEmulator>[0] = {}) => {
    const emulator = await startTestEmulator(options);
    running.push(emulator);
    return emulator;
  };

  it('refuses another name with 403 on /_emulator, saying how to allow it, and changes nothing', async () => {
    const emulator = await start();
    const sms = await emulator.send({ to: mobile(1), body: 'Hi' });
    await emulator.waitForStatus(sms.id, 'delivered');
    const evil = `evil.example:${emulator.port}`;
    for (const [method, path, body] of [
      ['GET', '/_emulator/messages'],
      ['GET', '/_emulator/events'],
      ['POST', '/_emulator/replies', { from: mobile(1), body: 'YES' }],
      ['POST', '/_emulator/reset'],
      ['PUT', '/_emulator/outcomes/33612340001', { outcome: 'expired' }],
    ] as const) {
      const answer = await requestWithHost(`${emulator.url}${path}`, evil, { method, body });
      expect(answer.status, path).toBe(403);
      expect(answer.body.error, path).toMatchObject({ status: 403, code: 'HOST_NOT_ALLOWED' });
      expect(answer.body.error.message).toContain(`Host '${evil}' refused`);
      expect(answer.body.error.message).toContain('--allow-host evil.example');
    }
    const messages = await emulator.control('GET', '/messages');
    expect(messages.body).toHaveLength(1);
    expect(messages.body[0].status).toBe('delivered');
    expect((await emulator.control('GET', '/deliveries')).body).toEqual([]);
  });

  it('answers loopback names and addresses, any port', async () => {
    const emulator = await start();
    for (const host of [
      `127.0.0.1:${emulator.port}`,
      `localhost:${emulator.port}`,
      `[::1]:${emulator.port}`,
      'app.localhost',
    ]) {
      const answer = await requestWithHost(`${emulator.url}/_emulator/messages`, host);
      expect(answer.status, host).toBe(200);
    }
  });

  it('guards /v1 the same way when it listens on loopback: no page sends as its key pairs', async () => {
    const emulator = await start();
    const evil = `evil.example:${emulator.port}`;
    for (const [method, path, body] of [
      ['GET', '/v1/webhooks'],
      ['GET', '/v1/sms?to=33612340002'],
      ['POST', '/v1/sms', { to: mobile(2), body: 'from a page' }],
      ['POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['sms.reply'] }],
    ] as const) {
      const answer = await requestWithHost(`${emulator.url}${path}`, evil, {
        method,
        body,
        headers: keys,
      });
      expect(answer.status, path).toBe(403);
      expect(answer.body.error, path).toMatchObject({ status: 403, code: 'HOST_NOT_ALLOWED' });
      expect(answer.body.error.message).toContain('--allow-host evil.example');
    }
    expect((await emulator.control('GET', '/messages')).body).toEqual([]);
    expect((await emulator.api('GET', '/webhooks')).body).toEqual([]);
    const local = await requestWithHost(
      `${emulator.baseUrl}/webhooks`,
      `localhost:${emulator.port}`,
      {
        headers: keys,
      },
    );
    expect(local.status).toBe(200);
    // Told otherwise: the name given is answered on /v1 too.
    const named = await start({ allowedHosts: ['emulator'] });
    const allowed = await requestWithHost(`${named.baseUrl}/webhooks`, 'emulator:4010', {
      headers: keys,
    });
    expect(allowed.status).toBe(200);
  });

  it('beyond loopback leaves /v1 to its own key pairs, but not to dev:dev', async () => {
    // A container network names the service as it likes: keys of its own keep pages out.
    const own = await start({ host: '0.0.0.0' });
    const named = await requestWithHost(`${own.baseUrl}/webhooks`, 'emulator:4010', {
      headers: keys,
    });
    expect(named.status).toBe(200);
    const dev = { id: 'dev', secret: 'dev', location: 'default' };
    const open = await start({ host: '0.0.0.0', keyPairs: [dev] });
    const devKeys = { 'x-api-key-id': 'dev', 'x-api-key-secret': 'dev' };
    const refused = await requestWithHost(`${open.baseUrl}/webhooks`, 'emulator:4010', {
      headers: devKeys,
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('HOST_NOT_ALLOWED');
    const local = await requestWithHost(`${open.baseUrl}/webhooks`, `127.0.0.1:${open.port}`, {
      headers: devKeys,
    });
    expect(local.status).toBe(200);
  });

  it('answers the allowed hosts; a wildcard listening address adds nothing', async () => {
    const emulator = await start({ allowedHosts: ['emulator'] });
    const allowed = await requestWithHost(`${emulator.url}/_emulator/messages`, 'emulator:4010');
    expect(allowed.status).toBe(200);
    // A wildcard names no address: it is reached, and answered, on loopback.
    const wildcard = await start({ host: '0.0.0.0' });
    expect(wildcard.url).toBe(`http://127.0.0.1:${wildcard.port}`);
    const refused = await requestWithHost(
      `${wildcard.url}/_emulator/messages`,
      `0.0.0.0:${wildcard.port}`,
    );
    expect(refused.status).toBe(403);
  });

  it('replyflow emulator --allow-host NAME answers that name', { timeout: 60_000 }, async () => {
    const child = spawn(
      process.execPath,
      [
        'bin/replyflow.js',
        'emulator',
        ...['--port', '0', '--allow-host', 'emu.test', '--allow-host', 'other.test'],
        ...['--log-level', 'silent'],
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    const exited = new Promise((done) => child.once('exit', done));
    try {
      const port = await waitFor(() => /listening on http:\/\/[^:]+:(\d+)/.exec(stdout)?.[1], {
        timeout: 15_000,
        message: 'the emulator prints its URL',
      });
      const url = `http://127.0.0.1:${port}/_emulator/messages`;
      expect((await requestWithHost(url, `emu.test:${port}`)).status).toBe(200);
      expect((await requestWithHost(url, 'other.test')).status).toBe(200);
      expect((await requestWithHost(url, `evil.example:${port}`)).status).toBe(403);
      // Its /v1 with the default dev:dev key pair: the same rule.
      const api = `http://127.0.0.1:${port}/v1/sms`;
      const devKeys = { 'x-api-key-id': 'dev', 'x-api-key-secret': 'dev' };
      const send = { method: 'POST', headers: devKeys, body: { to: '33612340003', body: 'Hi' } };
      expect((await requestWithHost(api, `evil.example:${port}`, send)).status).toBe(403);
      expect((await requestWithHost(api, `emu.test:${port}`, send)).status).toBe(201);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
