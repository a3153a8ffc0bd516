import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import type { DeliveryLogEntry, EmulatorOptions } from '../../../src/emulator/index.ts';
import { apiErrorBodySchema } from '../../../src/provider/schemas/api-error.ts';
import { waitFor } from '../../support/wait-for.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.ts';
import { mobile, startTestEmulator, type TestEmulator } from './harness.ts';

/** A resolver whose n-th answer (1-based) for any name is `answer(n)`, as `dns.lookup` gives it. */
function scriptedLookup(answer: (n: number) => string): LookupFunction {
  let calls = 0;
  return (_hostname, options, callback) => {
    const address = answer(++calls);
    const found: LookupAddress = { address, family: address.includes(':') ? 6 : 4 };
    if (options.all) callback(null, [found]);
    else callback(null, found.address, found.family);
  };
}

describe('an emulator listening beyond loopback refuses webhooks into this machine or its network', () => {
  const running: Array<TestEmulator | WebhookReceiver> = [];
  afterAll(async () => {
    await Promise.all(running.map((each) => each.close()));
  });
  const start = async (
    options: Partial<EmulatorOptions>,
    lookup?: LookupFunction,
  ): Promise<TestEmulator> => {
    const emulator = await startTestEmulator(options, lookup && { lookup });
    running.push(emulator);
    return emulator;
  };
  const receiver = async () => {
    const started = await startWebhookReceiver();
    running.push(started);
    return started;
  };

  it('answers 400 naming the address class and the option, for every form of such a URL', async () => {
    const hook = await receiver();
    const port = new URL(hook.url).port;
    for (const allowRemoteWebhooks of [false, true]) {
      const emulator = await start({ host: '0.0.0.0', allowRemoteWebhooks });
      for (const [url, kind] of [
        [`http://127.0.0.1:${port}/hook`, 'loopback'],
        [`http://localhost:${port}/hook`, 'loopback'],
        ['http://2130706433/', 'loopback'],
        ['http://0x7f.1/', 'loopback'],
        [`http://[::1]:${port}/hook`, 'loopback'],
        ['http://[::ffff:127.0.0.1]/', 'loopback'],
        ['http://0.0.0.0:3000/', 'loopback'],
        ['http://10.0.0.1/', 'private'],
        ['http://172.16.5.4/', 'private'],
        ['http://192.168.1.5:3000/', 'private'],
        ['http://100.64.0.1/', 'private'],
        ['http://[fd00::1]/', 'private'],
        ['http://[::ffff:10.0.0.1]/', 'private'],
        ['http://169.254.169.254/latest/meta-data', 'link-local'],
        ['http://[fe80::1]/', 'link-local'],
      ]) {
        const answer = await emulator.api('POST', '/webhooks', { url, events: ['sms.status'] });
        expect(answer.status, url).toBe(400);
        const { error } = apiErrorBodySchema.parse(answer.body);
        expect(error, url).toMatchObject({ code: 'INVALID_PARAMETER', field: 'url' });
        expect(error.message, url).toContain(`a ${kind} address`);
        expect(error.message, url).toContain('--allow-private-webhooks');
      }
      expect((await emulator.api('GET', '/webhooks')).body).toEqual([]);
    }
  });

  it('refuses a name that resolves to such an address, naming the address', async () => {
    const emulator = await start(
      { host: '0.0.0.0', allowRemoteWebhooks: true },
      scriptedLookup(() => '10.20.30.40'),
    );
    const answer = await emulator.api('POST', '/webhooks', {
      url: 'http://bots.internal.example/hook',
      events: ['sms.status'],
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toContain(
      "'bots.internal.example' resolves to 10.20.30.40, a private address",
    );
  });

  it('still needs allowRemoteWebhooks for a public host', async () => {
    const emulator = await start(
      { host: '0.0.0.0' },
      scriptedLookup(() => '93.184.216.34'),
    );
    const answer = await emulator.api('POST', '/webhooks', {
      url: 'https://bots.example.com/hook',
      events: ['sms.status'],
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toContain('--allow-remote-webhooks');
  });

  it('checks again as it connects: a name rebound to 127.0.0.1 after registration is not called', async () => {
    const hook = await receiver();
    // Public when registered, loopback at every lookup after: DNS rebinding.
    const emulator = await start(
      { host: '0.0.0.0', allowRemoteWebhooks: true, webhookRetry: { maxRetries: 0 } },
      scriptedLookup((n) => (n === 1 ? '93.184.216.34' : '127.0.0.1')),
    );
    const url = `http://rebound.example:${new URL(hook.url).port}/hook`;
    const registered = await emulator.api('POST', '/webhooks', { url, events: ['sms.status'] });
    expect(registered.status).toBe(201);
    await emulator.send({ to: mobile(1), body: 'Hi' });
    const failed = await waitFor(
      async () => {
        const log: DeliveryLogEntry[] = (await emulator.control('GET', '/deliveries')).body;
        return log.find((entry) => entry.outcome === 'network_error');
      },
      { message: 'a failed delivery in the log' },
    );
    expect(failed.url).toBe(url);
    expect(failed.error).toContain("'rebound.example' resolves to 127.0.0.1, a loopback address");
    expect(failed.error).toContain('--allow-private-webhooks');
    expect(hook.received).toEqual([]);
  });

  it('accepts and calls them with allowPrivateWebhooks (a container network)', async () => {
    const hook = await receiver();
    const emulator = await start({ host: '0.0.0.0', allowPrivateWebhooks: true });
    for (const url of ['http://10.0.0.1/', 'http://169.254.10.20/', 'http://[fd00::5]/']) {
      const answer = await emulator.api('POST', '/webhooks', { url, events: ['sms.reply'] });
      expect(answer.status, url).toBe(201);
    }
    const own = await emulator.api('POST', '/webhooks', { url: hook.url, events: ['sms.status'] });
    expect(own.status).toBe(201);
    await emulator.send({ to: mobile(2), body: 'Hi' });
    await waitFor(() => hook.received.length > 0, { message: 'the loopback receiver is called' });
  });

  it('on loopback only, keeps accepting loopback URLs and calling them, as before', async () => {
    const hook = await receiver();
    const emulator = await start({ host: '127.0.0.1' });
    for (const url of [
      hook.url,
      'http://localhost:9/x',
      'http://[::1]:9/x',
      'http://2130706433/',
    ]) {
      const answer = await emulator.api('POST', '/webhooks', { url, events: ['sms.reply'] });
      expect(answer.status, url).toBe(201);
    }
    expect(
      (await emulator.api('POST', '/webhooks', { url: 'http://10.0.0.1/', events: ['sms.reply'] }))
        .body.error.message,
    ).toContain('--allow-remote-webhooks');
    await emulator.api('POST', '/webhooks', { url: hook.url, events: ['sms.status'] });
    await emulator.send({ to: mobile(3), body: 'Hi' });
    await waitFor(() => hook.received.length > 0, { message: 'the loopback receiver is called' });
  });

  it('with allowPrivateWebhooks on loopback too, accepts a private URL without allowRemoteWebhooks', async () => {
    const emulator = await start({ host: '127.0.0.1', allowPrivateWebhooks: true });
    const answer = await emulator.api('POST', '/webhooks', {
      url: 'http://172.18.0.3:3000/hook',
      events: ['sms.reply'],
    });
    expect(answer.status).toBe(201);
  });
});
