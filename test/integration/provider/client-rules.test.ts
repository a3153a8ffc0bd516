import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/app/config.ts';
import { ConfigError, ValidationError } from '../../../src/errors.ts';
import {
  createMessagingClient,
  type MessagingClient,
} from '../../../src/provider/messaging-client.ts';
import { json, type StubService, startStubService } from './stub-service.ts';

let stub: StubService | undefined;
let client: MessagingClient | undefined;
afterEach(async () => {
  await client?.close();
  await stub?.close();
  client = undefined;
  stub = undefined;
});

const options = (baseUrl: string) => ({ baseUrl, keyId: 'k', keySecret: 's', location: 'paris' });

describe('the client rules of the spec', () => {
  it('refuses POST /sms with an empty or missing body as a missing parameter, before any request', async () => {
    stub = await startStubService((_request, res) => json(res, 200, {}));
    client = createMessagingClient(options(stub.baseUrl));
    for (const body of ['', undefined]) {
      const error = await client.sms
        .send({ to: '+33 6 12 34 56 78', body: body as string })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect(error).toMatchObject({ code: 'MISSING_PARAMETER', field: 'body' });
      expect((error as Error).message).toContain('body is missing');
    }
    expect(stub.requests).toEqual([]);
  });

  it('carries the field the service named when it refuses a request', async () => {
    stub = await startStubService((_request, res) =>
      json(res, 400, {
        error: {
          status: 400,
          code: 'INVALID_PARAMETER',
          message: "invalid parameter 'body'",
          field: 'body',
        },
      }),
    );
    client = createMessagingClient(options(stub.baseUrl));
    const error = await client.sms
      .send({ to: '+33 6 12 34 56 78', body: 'Hi' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'PROVIDER_REJECTED', status: 400 });
    expect((error as Error).message).toContain('[field body]');
  });

  it('refuses a base URL whose last path segment is not v1, with the message the config gives', async () => {
    const configMessage = await loadConfig({
      REPLYFLOW_PROVIDER_URL: 'https://api.example.com/v2',
      REPLYFLOW_API_KEY_ID: 'k',
      REPLYFLOW_API_KEY_SECRET: 's',
    }).catch((e: Error) => e.message);
    expect(configMessage).toContain('REPLYFLOW_PROVIDER_URL must end with /v1');
    for (const baseUrl of [
      'https://api.example.com/v2',
      'https://api.example.com/',
      'https://api.example.com/v1/sms',
      'https://api.example.com/xv1',
    ]) {
      expect(() => createMessagingClient(options(baseUrl))).toThrow(ConfigError);
      expect(() => createMessagingClient(options(baseUrl))).toThrow(
        `baseUrl '${baseUrl}' must end with /v1`,
      );
    }
    expect(() => createMessagingClient(options('ftp://api.example.com/v1'))).toThrow(
      'must be an http(s) URL such as https://api.example.com/v1',
    );
    // With or without a trailing slash, /v1 is accepted.
    for (const baseUrl of ['https://api.example.com/v1', 'https://api.example.com/api/v1/']) {
      const made = createMessagingClient(options(baseUrl));
      await made.close();
    }
  });
});
