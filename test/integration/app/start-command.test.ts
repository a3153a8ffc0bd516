import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../../src/emulator/index.ts';
import { createMessagingClient } from '../../../src/provider/messaging-client.ts';
import { freePort } from '../../support/free-port.ts';
import { randomPrefix, testRedisUrl } from '../../support/redis.ts';
import { replyNotification } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';

function run(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, ['bin/replyflow.js', ...args], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, exited, output: () => output };
}

describe('replyflow start, as a process configured through env', () => {
  let emulator: RunningEmulator;
  let env: Record<string, string>;
  let port: number;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    emulator = await startEmulator({
      port: 0,
      keyPairs: [{ id: 'k', secret: 's', location: 'paris' }],
      timeScale: 0.01,
    });
    port = await freePort();
    env = {
      REPLYFLOW_PROVIDER_URL: emulator.baseUrl,
      REPLYFLOW_API_KEY_ID: 'k',
      REPLYFLOW_API_KEY_SECRET: 's',
      REPLYFLOW_LOCATION: 'paris',
      REPLYFLOW_WEBHOOK_SECRET: 'start-test-secret-0123',
      REPLYFLOW_PUBLIC_URL: `http://127.0.0.1:${port}`,
      REPLYFLOW_BOTS_DIR: 'test/fixtures/bots',
      REDIS_URL: testRedisUrl(),
      REPLYFLOW_REDIS_PREFIX: randomPrefix('start'),
      PORT: String(port),
      LOG_LEVEL: 'warn',
    };
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await emulator.close();
  });

  it('registers its webhook on start, once across restarts, and answers through the bot', async () => {
    const client = createMessagingClient({
      baseUrl: emulator.baseUrl,
      keyId: 'k',
      keySecret: 's',
      location: 'paris',
    });
    for (let round = 0; round < 2; round++) {
      const proc = run(['start'], env);
      children.push(proc.child);
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, {
        timeout: 15_000,
        message: `replyflow start up (${proc.output()})`,
      });
      await waitFor(async () => (await client.webhooks.list()).length > 0);
      if (round === 0) {
        const phone = '33612347777';
        const res = await fetch(
          `http://127.0.0.1:${port}/webhooks/paris/${env.REPLYFLOW_WEBHOOK_SECRET}`,
          {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(replyNotification('start-1', phone, 'ECHO from a process')),
          },
        );
        expect(res.status).toBe(200);
        await waitFor(
          async () => {
            const list = (await (
              await fetch(`${emulator.url}/_emulator/messages?to=${phone}`)
            ).json()) as unknown[];
            return list.length === 2;
          },
          { message: 'the bot answered' },
        );
      }
      proc.child.kill('SIGTERM');
      expect(await proc.exited).toBe(0);
    }
    const hooks = await client.webhooks.list();
    expect(hooks).toHaveLength(1);
    expect(hooks[0]).toMatchObject({
      url: `http://127.0.0.1:${port}/webhooks/paris/${env.REPLYFLOW_WEBHOOK_SECRET}`,
    });
    expect([...hooks[0]!.events].sort()).toEqual(['sms.reply', 'sms.status']);
    await client.close();
  });

  it('refuses a bad configuration with a clear message and exit code 1', async () => {
    const proc = run(['start'], { ...env, REPLYFLOW_PROVIDER_URL: 'http://127.0.0.1:1/v2' });
    expect(await proc.exited).toBe(1);
    expect(proc.output()).toContain('REPLYFLOW_PROVIDER_URL must end with /v1');
    expect(proc.output()).not.toMatch(/\n\s+at /);
  });
});
