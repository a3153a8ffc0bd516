import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ProviderError,
  ProviderRateLimitedError,
  ProviderRejectedError,
  ProviderUnauthorizedError,
  ProviderUnavailableError,
} from '../../../src/provider/provider-errors.ts';
import { type ProviderEmulator, startProviderEmulator } from './provider-emulator.ts';

let world: ProviderEmulator;

beforeEach(async () => {
  world = await startProviderEmulator();
});
afterEach(async () => {
  await world.close();
});

async function failure<T extends ProviderError>(
  promise: Promise<unknown>,
  kind: abstract new (...args: never[]) => T,
): Promise<T> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(kind);
  return error as T;
}

describe('unauthorized (401)', () => {
  it('names the location and says which key pair to check, on every kind of call', async () => {
    const client = world.client({ keySecret: 'wrong' });
    const calls = [
      client.sms.send({ to: '0612345678', body: 'Hi' }),
      client.sms.get('any'),
      client.groups.list(),
      client.customColumns.list(),
      client.webhooks.list(),
    ];
    for (const call of calls) {
      const error = await failure(call, ProviderUnauthorizedError);
      expect(error.code).toBe('PROVIDER_UNAUTHORIZED');
      expect(error.status).toBe(401);
      expect(error.mayHaveReachedService).toBe(false);
      expect(error.message).toContain("key pair of location 'paris'");
      expect(error.message).toContain('REPLYFLOW_API_KEY_SECRET');
    }
    expect(await world.control('GET', '/messages')).toEqual([]);
  });
});

describe('rejected (4xx)', () => {
  it('an unknown sms id is a 404 with the service body, not retried', async () => {
    const error = await failure(world.client().sms.get('sms_missing'), ProviderRejectedError);
    expect(error).toMatchObject({
      code: 'PROVIDER_REJECTED',
      status: 404,
      mayHaveReachedService: false,
    });
    expect(error.body).toMatchObject({ error: { status: 404, code: 'NOT_FOUND' } });
    expect(await world.requests('GET /v1/sms/sms_missing')).toHaveLength(1);
  });

  it('an empty POST /sms body is refused by the client, before any request (the service would refuse it)', async () => {
    const error = await world
      .client()
      .sms.send({ to: '0612345678', body: '' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'MISSING_PARAMETER', field: 'body' });
    expect(await world.requests('POST /v1/sms')).toHaveLength(0);
  });

  it('an unknown group, or webhook, is a 404', async () => {
    const client = world.client();
    const contact = { contactEmailAddress: 'ana@example.com' };
    expect((await failure(client.contacts.add(999, contact), ProviderRejectedError)).status).toBe(
      404,
    );
    expect((await failure(client.webhooks.remove('nope'), ProviderRejectedError)).status).toBe(404);
  });
});

describe('rate-limited (429)', () => {
  beforeEach(async () => {
    await world.control('PUT', '/rate-limit', { perSecond: 1 });
  });

  it('POST /sms reports Retry-After and is not retried', async () => {
    const client = world.client({ retry: { attempts: 5 } });
    await client.groups.list();
    const error = await failure(
      client.sms.send({ to: '0612345678', body: 'Hi' }),
      ProviderRateLimitedError,
    );
    expect(error).toMatchObject({
      code: 'PROVIDER_RATE_LIMITED',
      status: 429,
      mayHaveReachedService: false,
    });
    expect(error.retryAfterMs).toBe(1000);
    expect(await world.requests('POST /v1/sms')).toHaveLength(1);
  });

  it('a GET waits Retry-After and then succeeds', async () => {
    const waits: number[] = [];
    const client = world.client({
      // Waits by the client's own clock (Date.now): a timer may fire a millisecond early by it,
      // and the client would then hold that millisecond more before its retry.
      sleep: async (ms) => {
        waits.push(ms);
        const until = Date.now() + ms;
        while (Date.now() < until) {
          await new Promise((resolve) => setTimeout(resolve, until - Date.now()));
        }
      },
    });
    await client.groups.list();
    await expect(client.customColumns.list()).resolves.toHaveLength(3);
    expect(waits).toEqual([1000]);
    expect((await world.requests('GET /v1/customColumns')).map((r) => r.status)).toEqual([
      429, 200,
    ]);
  });
});

describe('unavailable (5xx, network)', () => {
  it('a 503 before processing: POST /sms is not retried, and says it may have reached the service', async () => {
    await world.control('POST', '/faults', { path: 'POST /sms', status: 503, when: 'before' });
    const error = await failure(
      world.client().sms.send({ to: '0612345678', body: 'Hi' }),
      ProviderUnavailableError,
    );
    expect(error).toMatchObject({
      code: 'PROVIDER_UNAVAILABLE',
      status: 503,
      mayHaveReachedService: true,
    });
    expect(await world.requests('POST /v1/sms')).toHaveLength(1);
  });

  it('a 500 after processing: the message exists although the client got an error', async () => {
    await world.control('POST', '/faults', { path: 'POST /sms', status: 500, when: 'after' });
    const error = await failure(
      world.client().sms.send({ to: '0612345678', body: 'Hi' }),
      ProviderUnavailableError,
    );
    expect(error.mayHaveReachedService).toBe(true);
    expect(await world.control('GET', '/messages?to=33612345678')).toHaveLength(1);
  });

  it('GETs are retried through injected 5xx', async () => {
    await world.control('POST', '/faults', { path: 'GET /groups', count: 2 });
    await expect(world.client().groups.list()).resolves.toEqual([]);
    expect((await world.requests('GET /v1/groups')).map((r) => r.status)).toEqual([503, 503, 200]);
  });

  it('webhooks.ensure survives a POST /webhooks that failed after registering, without a duplicate', async () => {
    await world.control('POST', '/faults', { path: 'POST /webhooks', when: 'after' });
    const client = world.client();
    const url = 'https://bots.example.com/hooks/flaky';
    const result = await client.webhooks.ensure(url, ['sms.status', 'sms.reply']);
    expect(result.webhooks).toHaveLength(1);
    expect((await client.webhooks.list()).filter((h) => h.url === url)).toHaveLength(1);
    expect((await world.requests()).map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      'GET /v1/webhooks 200',
      'POST /v1/webhooks 503',
      'GET /v1/webhooks 200',
      'GET /v1/webhooks 200',
    ]);
  });

  it('a stopped service refuses the connection: nothing reached it', async () => {
    const client = world.client();
    await world.emulator.close();
    const error = await failure(
      client.sms.send({ to: '0612345678', body: 'Hi' }),
      ProviderUnavailableError,
    );
    expect(error.mayHaveReachedService).toBe(false);
  });
});
