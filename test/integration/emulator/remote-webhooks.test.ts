import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../../src/emulator/index.ts';
import { apiErrorBodySchema } from '../../../src/provider/schemas/api-error.ts';
import { waitFor } from '../../support/wait-for.ts';

const headers = {
  'x-api-key-id': 'k',
  'x-api-key-secret': 's',
  'content-type': 'application/json',
};

function register(baseUrl: string, url: string) {
  return fetch(`${baseUrl}/webhooks`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ url, events: ['sms.status'] }),
  });
}

describe('the emulator calls only this machine unless allowed', () => {
  const running: RunningEmulator[] = [];
  afterAll(async () => {
    await Promise.all(running.map((emulator) => emulator.close()));
  });
  const start = async (allowRemoteWebhooks?: boolean) => {
    const emulator = await startEmulator({
      port: 0,
      keyPairs: [{ id: 'k', secret: 's', location: 'paris' }],
      allowRemoteWebhooks,
    });
    running.push(emulator);
    return emulator;
  };

  it('refuses a webhook URL outside loopback, saying how to allow it, and registers nothing', async () => {
    const emulator = await start();
    for (const url of [
      'https://bots.example.com/hooks',
      'http://10.0.0.5:3000/webhooks/x',
      'http://169.254.169.254/latest/meta-data',
      'http://[::ffff:10.0.0.1]/x',
      'http://localhost.example.com/x',
      'http://127.0.0.1.nip.io/x',
      'http://0.0.0.0:3000/x',
    ]) {
      const res = await register(emulator.baseUrl, url);
      expect(res.status, url).toBe(400);
      const body = apiErrorBodySchema.parse(await res.json());
      expect(body.error).toMatchObject({ code: 'INVALID_PARAMETER', field: 'url' });
      expect(body.error.message).toContain('--allow-remote-webhooks');
    }
    const list = await fetch(`${emulator.baseUrl}/webhooks`, { headers });
    expect(await list.json()).toEqual([]);
  });

  it('accepts every loopback form', async () => {
    const emulator = await start();
    for (const url of [
      'http://127.0.0.1:3000/webhooks/a',
      'http://127.8.9.10/b',
      'http://localhost:3000/c',
      'http://[::1]:3000/d',
      'http://2130706433/e', // 127.0.0.1 written as a number
    ]) {
      expect((await register(emulator.baseUrl, url)).status, url).toBe(201);
    }
  });

  it('accepts any host when started with allowRemoteWebhooks', async () => {
    const emulator = await start(true);
    expect((await register(emulator.baseUrl, 'https://bots.example.com/hooks')).status).toBe(201);
  });

  it('replyflow emulator --allow-remote-webhooks accepts them; --host beyond loopback warns', {
    timeout: 60_000,
  }, async () => {
    const child = spawn(
      process.execPath,
      [
        'bin/replyflow.js',
        'emulator',
        ...['--port', '0', '--host', '0.0.0.0', '--key-pair', 'k:s:paris'],
        ...['--allow-remote-webhooks', '--log-level', 'silent'],
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise((done) => child.once('exit', done));
    try {
      const port = await waitFor(() => /listening on http:\/\/[^:]+:(\d+)/.exec(stdout)?.[1], {
        timeout: 15_000,
        message: 'the emulator prints its URL',
      });
      expect(stderr).toMatch(/warning: --host 0\.0\.0\.0 is not loopback/);
      const res = await register(`http://127.0.0.1:${port}/v1`, 'https://bots.example.com/h');
      expect(res.status).toBe(201);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
