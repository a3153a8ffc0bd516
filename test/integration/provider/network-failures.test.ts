import { afterEach, describe, expect, it } from 'vitest';
import {
  createMessagingClient,
  type MessagingClient,
} from '../../../src/provider/messaging-client.ts';
import { ProviderUnavailableError } from '../../../src/provider/provider-errors.ts';
import { json, type StubService, startStubService } from './stub-service.ts';

const send = { to: '+33 6 12 34 56 78', body: 'Your table is ready' };
let stub: StubService | undefined;
let client: MessagingClient | undefined;

afterEach(async () => {
  await client?.close();
  await stub?.close();
  client = undefined;
  stub = undefined;
});

function clientFor(baseUrl: string, timeouts = {}) {
  client = createMessagingClient({
    baseUrl,
    keyId: 'k',
    keySecret: 's',
    location: 'paris',
    timeouts,
    retry: { attempts: 3 },
    sleep: async () => {},
  });
  return client;
}

async function failureOf(promise: Promise<unknown>): Promise<ProviderUnavailableError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderUnavailableError);
  return error as ProviderUnavailableError;
}

describe('what the client says about a POST /sms that failed on the way', () => {
  it('connection refused: the service cannot have received it, a retry is safe', async () => {
    stub = await startStubService(() => {});
    const closedUrl = stub.baseUrl;
    await stub.close();
    stub = undefined;
    const error = await failureOf(clientFor(closedUrl).sms.send(send));
    expect(error.mayHaveReachedService).toBe(false);
    expect(error.code).toBe('PROVIDER_UNAVAILABLE');
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.message).toContain("location 'paris'");
  });

  it('unknown host: the service cannot have received it', async () => {
    const error = await failureOf(clientFor('http://replyflow-test.invalid/v1').sms.send(send));
    expect(error.mayHaveReachedService).toBe(false);
  });

  it('no answer within the time-out after the request was sent: it may have reached the service', async () => {
    stub = await startStubService(() => {
      // never answers
    });
    const error = await failureOf(clientFor(stub.baseUrl, { headersMs: 200 }).sms.send(send));
    expect(error.mayHaveReachedService).toBe(true);
    expect(error.message).toContain('UND_ERR_HEADERS_TIMEOUT');
    expect(stub.requests).toHaveLength(1);
  });

  it('socket reset in the middle of the response: it may have reached the service', async () => {
    stub = await startStubService((_request, res, socket) => {
      res.writeHead(201, { 'content-type': 'application/json', 'content-length': '500' });
      res.write('{"id":"sms_1","st');
      setTimeout(() => socket.destroy(), 20);
    });
    const error = await failureOf(clientFor(stub.baseUrl).sms.send(send));
    expect(error.mayHaveReachedService).toBe(true);
  });

  it('is never retried, whatever the failure', async () => {
    stub = await startStubService((_request, res) => {
      json(res, 503, { error: { status: 503, code: 'DOWN', message: 'maintenance' } });
    });
    const error = await failureOf(clientFor(stub.baseUrl).sms.send(send));
    expect(error.status).toBe(503);
    expect(error.mayHaveReachedService).toBe(true);
    expect(stub.requests).toHaveLength(1);
  });
});

describe('idempotent calls', () => {
  it('GET /sms/{id} is retried on 5xx and a broken connection, then succeeds', async () => {
    let calls = 0;
    stub = await startStubService((request, res, socket) => {
      calls++;
      if (calls === 1) return json(res, 502, 'bad gateway');
      if (calls === 2) return void socket.destroy();
      json(res, 200, {
        id: request.path.split('/')[3],
        from: '',
        to: '33612345678',
        body: 'Hi',
        shortenUrls: false,
        isTransactional: false,
        status: 'delivered',
        statusReason: 'DELIVRD',
      });
    });
    const sms = await clientFor(stub.baseUrl).sms.get('sms_1');
    expect(sms.status).toBe('delivered');
    expect(stub.requests).toHaveLength(3);
  });

  it('GET gives up after the configured attempts with the last error', async () => {
    stub = await startStubService((_request, res) => json(res, 500, 'boom'));
    const error = await failureOf(clientFor(stub.baseUrl).groups.list());
    expect(error.status).toBe(500);
    expect(stub.requests).toHaveLength(3);
  });
});
