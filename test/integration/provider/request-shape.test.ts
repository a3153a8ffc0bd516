import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/errors.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import {
  createMessagingClient,
  type MessagingClient,
} from '../../../src/provider/messaging-client.ts';
import { ProviderRateLimitedError } from '../../../src/provider/provider-errors.ts';
import type { ProviderWarning } from '../../../src/provider/provider-warning.ts';
import { StoreUnavailableError } from '../../../src/store/store-errors.ts';
import { json, type StubService, startStubService } from './stub-service.ts';

let stub: StubService | undefined;
let client: MessagingClient | undefined;

afterEach(async () => {
  await client?.close();
  await stub?.close();
});

/** A stub that accepts every SMS (echoing it) and 429s the requests listed in `limited`. */
async function setup(limited: string[] = []) {
  const lines: string[] = [];
  const warnings: ProviderWarning[] = [];
  const waits: number[] = [];
  let now = 1_000_000;
  stub = await startStubService((request, res) => {
    if (limited[0] === `${request.method} ${request.path}`) {
      limited.shift();
      return json(
        res,
        429,
        { error: { status: 429, code: 'RATE_LIMITED', message: 'slow down' } },
        { 'retry-after': '2' },
      );
    }
    if (request.path === '/v1/groups') return json(res, 200, []);
    json(res, 201, {
      ...JSON.parse(request.body),
      id: 'sms_1',
      status: 'pending',
      statusReason: '',
    });
  });
  client = createMessagingClient({
    baseUrl: stub.baseUrl,
    keyId: 'key-paris',
    keySecret: 's3cr3t-value',
    location: 'paris',
    defaultCountry: 'FR',
    logger: createLogger({
      level: 'debug',
      destination: new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    }),
    onWarning: (warning) => warnings.push(warning),
    clock: { now: () => now },
    sleep: async (ms) => {
      waits.push(ms);
      now += ms;
    },
  });
  return { client, stub, lines, warnings, waits };
}

describe('POST /sms as it goes on the wire', () => {
  it('carries the key pair, JSON headers, the normalized number and the defaults', async () => {
    const t = await setup();
    const sms = await t.client.sms.send({ to: '06 12 34 56 78', body: 'Your table is ready' });
    expect(sms).toMatchObject({ id: 'sms_1', status: 'pending', to: '33612345678' });
    const [request] = t.stub.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/v1/sms');
    expect(request?.headers).toMatchObject({
      accept: 'application/json',
      'content-type': 'application/json',
      'x-api-key-id': 'key-paris',
      'x-api-key-secret': 's3cr3t-value',
    });
    expect(JSON.parse(request?.body ?? '')).toEqual({
      from: '',
      to: '33612345678',
      body: 'Your table is ready',
      shortenUrls: false,
      isTransactional: false,
    });
  });

  it('refuses a landline or a bad sender before any request, with a clear reason', async () => {
    const t = await setup();
    const landline = await t.client.sms.send({ to: '01 42 92 81 00', body: 'Hi' }).catch((e) => e);
    expect(landline).toBeInstanceOf(ValidationError);
    expect(landline.code).toBe('NOT_A_MOBILE_NUMBER');
    const sender = await t.client.sms
      .send({ to: '0612345678', body: 'Hi', from: 'é!' })
      .catch((e) => e);
    expect(sender.code).toBe('INVALID_SENDER');
    expect(sender.message).toContain('at least 2');
    expect(t.stub.requests).toHaveLength(0);
  });

  it('sends a sanitized sender and says so', async () => {
    const t = await setup();
    await t.client.sms.send({ to: '0612345678', body: 'Hi', from: 'Dr. Martin!' });
    expect(JSON.parse(t.stub.requests[0]?.body ?? '').from).toBe('Dr Martin');
    expect(t.warnings).toMatchObject([
      { code: 'SENDER_SANITIZED', field: 'from', location: 'paris' },
    ]);
  });

  it('logs masked phone numbers and never the API secret', async () => {
    const t = await setup();
    await t.client.sms.send({ to: '06 12 34 56 78', body: 'Hi' });
    const log = t.lines.join('');
    expect(log).toContain('336•••••678');
    expect(log).not.toContain('33612345678');
    expect(log).not.toContain('s3cr3t-value');
    expect(log).toContain('"location":"paris"');
  });
});

describe('after a 429', () => {
  it('reports Retry-After on POST /sms without retrying, and holds the next call until then', async () => {
    const t = await setup(['POST /v1/sms']);
    const error = await t.client.sms.send({ to: '0612345678', body: 'Hi' }).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderRateLimitedError);
    expect(error.retryAfterMs).toBe(2000);
    expect(error.mayHaveReachedService).toBe(false);
    expect(t.stub.requests).toHaveLength(1);
    await t.client.groups.list();
    expect(t.waits).toEqual([2000]);
  });

  it('retries a GET after exactly Retry-After', async () => {
    const t = await setup(['GET /v1/groups']);
    await expect(t.client.groups.list()).resolves.toEqual([]);
    expect(t.stub.requests).toHaveLength(2);
    expect(t.waits).toEqual([2000]);
  });
});

describe('an injected limiter', () => {
  it('is waited on before every request, so a shared (Redis) limiter can replace the local one', async () => {
    stub = await startStubService((_request, res) => json(res, 200, []));
    let acquired = 0;
    client = createMessagingClient({
      baseUrl: stub.baseUrl,
      keyId: 'k',
      keySecret: 's',
      location: 'paris',
      limits: {
        limiter: {
          async acquire() {
            acquired++;
            expect(stub?.requests).toHaveLength(acquired - 1);
          },
        },
      },
    });
    await client.groups.list();
    await client.webhooks.list();
    expect(acquired).toBe(2);
  });

  it('refusing a token fails the call as rate-limited, with nothing sent', async () => {
    stub = await startStubService((_request, res) => json(res, 200, []));
    client = createMessagingClient({
      baseUrl: stub.baseUrl,
      keyId: 'k',
      keySecret: 's',
      location: 'paris',
      retry: { attempts: 1 },
      limits: {
        limiter: {
          acquire: async () => {
            throw new Error('queue full');
          },
        },
      },
    });
    const error = await client.sms.send({ to: '+33612345678', body: 'Hi' }).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderRateLimitedError);
    expect(error).toMatchObject({ status: undefined, mayHaveReachedService: false });
    expect(error.message).toContain('queue full');
    expect(stub.requests).toHaveLength(0);
  });

  it('that cannot reach its store fails the call with the store error, not as rate-limited', async () => {
    stub = await startStubService((_request, res) => json(res, 200, []));
    const down = new StoreUnavailableError('Redis did not answer reserveSendSlot (…)');
    client = createMessagingClient({
      baseUrl: stub.baseUrl,
      keyId: 'k',
      keySecret: 's',
      location: 'paris',
      limits: {
        limiter: {
          acquire: async () => {
            throw down;
          },
        },
      },
    });
    await expect(client.webhooks.list()).rejects.toBe(down);
    await expect(client.sms.send({ to: '+33612345678', body: 'Hi' })).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
    });
    expect(stub.requests).toHaveLength(0);
  });
});
