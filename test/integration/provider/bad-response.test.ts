import { afterEach, describe, expect, it } from 'vitest';
import {
  createMessagingClient,
  type MessagingClient,
} from '../../../src/provider/messaging-client.ts';
import { ProviderBadResponseError } from '../../../src/provider/provider-errors.ts';
import { json, type StubService, startStubService } from './stub-service.ts';

let stub: StubService | undefined;
let client: MessagingClient | undefined;

afterEach(async () => {
  await client?.close();
  await stub?.close();
});

async function serve(status: number, body: unknown, raw = false) {
  stub = await startStubService((_request, res) => {
    if (!raw) return json(res, status, body);
    res.writeHead(status, { 'content-type': 'text/html' });
    res.end(String(body));
  });
  client = createMessagingClient({
    baseUrl: stub.baseUrl,
    keyId: 'k',
    keySecret: 's',
    location: 'paris',
    sleep: async () => {},
  });
  return client;
}

async function badResponse(promise: Promise<unknown>): Promise<ProviderBadResponseError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderBadResponseError);
  return error as ProviderBadResponseError;
}

const group = {
  id: 7,
  name: 'VIP',
  createdAt: '2026-01-02T03:04:05Z',
  updatedAt: '2026-01-02T03:04:05Z',
  source: 'user',
};

describe('a 2xx answer of the wrong shape', () => {
  it('names the path of the bad field in a list, and is not retried', async () => {
    const c = await serve(200, [group, { ...group, id: '8' }]);
    const error = await badResponse(c.groups.list());
    expect(error.code).toBe('PROVIDER_BAD_RESPONSE');
    expect(error.issues.map((i) => i.path)).toEqual(['[1].id']);
    expect(error.message).toContain('[1].id');
    expect(error.message).toContain('GET /groups');
    expect(error.body).toEqual([group, { ...group, id: '8' }]);
    expect(stub?.requests).toHaveLength(1);
  });

  it('names nested and missing fields', async () => {
    const c = await serve(200, [{ ...group, createdAt: 'yesterday' }, { name: 'x' }]);
    const error = await badResponse(c.groups.list());
    expect(error.issues.map((i) => i.path)).toEqual([
      '[0].createdAt',
      '[1].id',
      '[1].createdAt',
      '[1].updatedAt',
      '[1].source',
    ]);
  });

  it('on POST /sms says the message may have been accepted', async () => {
    const c = await serve(201, {
      id: 'sms_1',
      from: '',
      to: '33612345678',
      body: 'Hi',
      shortenUrls: false,
      isTransactional: false,
      status: 'queued',
      statusReason: '',
    });
    const error = await badResponse(c.sms.send({ to: '+33612345678', body: 'Hi' }));
    expect(error.issues.map((i) => i.path)).toEqual(['status']);
    expect(error.mayHaveReachedService).toBe(true);
  });

  it('reports a body that is not JSON at all', async () => {
    const c = await serve(200, '<html>maintenance page</html>', true);
    const error = await badResponse(c.customColumns.list());
    expect(error.issues).toEqual([{ path: '', message: 'the body is not JSON' }]);
    expect(error.body).toBe('<html>maintenance page</html>');
  });

  it('reports a redirect instead of following it', async () => {
    stub = await startStubService((_request, res) => {
      res.writeHead(302, { location: 'https://example.com/login' });
      res.end();
    });
    client = createMessagingClient({
      baseUrl: stub.baseUrl,
      keyId: 'k',
      keySecret: 's',
      location: 'paris',
    });
    const error = await badResponse(client.webhooks.list());
    expect(error.message).toContain('HTTP 302');
  });
});
