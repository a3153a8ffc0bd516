import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/observability/logger.ts';
import { apiErrorBodySchema } from '../../../src/provider/schemas/api-error.ts';
import { smsSchema } from '../../../src/provider/schemas/sms.ts';
import { mobile, paris, startTestEmulator, type TestEmulator } from './harness.ts';

describe('POST /sms (spec §4, §7)', () => {
  let emulator: TestEmulator;
  beforeEach(async () => {
    emulator = await startTestEmulator();
  });
  afterEach(() => emulator.close());

  async function refused(request: unknown) {
    const answer = await emulator.api('POST', '/sms', request);
    expect(answer.status).toBe(400);
    return apiErrorBodySchema.parse(answer.body).error;
  }

  it('answers the request fields plus id, status pending and an empty statusReason, nothing else', async () => {
    const request = {
      from: 'Clinic',
      to: mobile(),
      body: 'Hi',
      shortenUrls: true,
      isTransactional: true,
    };
    const answer = await emulator.api('POST', '/sms', request);
    expect(answer.status).toBe(201);
    expect(smsSchema.strict().parse(answer.body)).toEqual({
      ...request,
      id: expect.any(String),
      status: 'pending',
      statusReason: '',
    });
  });

  it('defaults from to the short code and both flags to false when only to and body are sent', async () => {
    const sms = await emulator.send({ to: mobile(), body: 'Hi' });
    expect(sms).toMatchObject({ from: '', shortenUrls: false, isTransactional: false });
  });

  it('gives each SMS its own id', async () => {
    const a = await emulator.send({ to: mobile(), body: 'a' });
    const b = await emulator.send({ to: mobile(), body: 'b' });
    expect(a.id).not.toBe(b.id);
  });

  it.each(['to', 'body'])('refuses a request without %s, naming the field', async (field) => {
    const request: Record<string, unknown> = { to: mobile(), body: 'Hi' };
    delete request[field];
    expect(await refused(request)).toMatchObject({ code: 'MISSING_PARAMETER', field });
  });

  it('refuses a field of the wrong type, naming it', async () => {
    expect(await refused({ to: mobile(), body: 'Hi', shortenUrls: 'yes' })).toMatchObject({
      code: 'INVALID_PARAMETER',
      field: 'shortenUrls',
    });
  });

  it('refuses an empty body', async () => {
    expect(await refused({ to: mobile(), body: '' })).toMatchObject({ field: 'body' });
  });

  it.each(['+33612345678', '33 6 12 34 56 78', '0612345678x'])(
    "refuses '%s': to must be digits only, with the country prefix",
    async (to) => {
      expect(await refused({ to, body: 'Hi' })).toMatchObject({
        code: 'INVALID_PHONE_NUMBER',
        field: 'to',
      });
    },
  );

  it('refuses a landline with 400 (2023-05-31 change)', async () => {
    expect(await refused({ to: '33123456789', body: 'Hi' })).toMatchObject({
      code: 'NOT_A_MOBILE_NUMBER',
      field: 'to',
    });
  });

  it('refuses a number with no country prefix', async () => {
    expect((await refused({ to: '0612345678', body: 'Hi' })).field).toBe('to');
  });

  it('removes unauthorized characters from from, and answers with the sanitized value', async () => {
    const sms = await emulator.send({ from: 'Dr. Martin!', to: mobile(), body: 'Hi' });
    expect(sms.from).toBe('Dr Martin');
    const stored = await emulator.api('GET', `/sms/${sms.id}`);
    expect(stored.body.from).toBe('Dr Martin');
  });

  it.each(['A', 'é!', '!!', '-'])(
    "refuses from '%s', shorter than 2 characters once sanitized (2023-10-06 change)",
    async (from) => {
      expect(await refused({ from, to: mobile(), body: 'Hi' })).toMatchObject({
        code: 'INVALID_SENDER',
        field: 'from',
      });
    },
  );

  it('accepts a 2-character sender', async () => {
    expect((await emulator.send({ from: 'AB', to: mobile(), body: 'Hi' })).from).toBe('AB');
  });

  it('refuses a body that is not JSON, with the same error shape', async () => {
    const notJson = await emulator.api('POST', '/sms', '{to:');
    expect(notJson.status).toBe(400);
    expect(apiErrorBodySchema.parse(notJson.body).error.code).toBe('INVALID_JSON');
    const noObject = await emulator.api('POST', '/sms', [1, 2]);
    expect(apiErrorBodySchema.parse(noObject.body).error.status).toBe(400);
  });

  it('creates nothing when it refuses', async () => {
    await refused({ to: '33123456789', body: 'Hi' });
    expect((await emulator.control('GET', '/messages')).body).toEqual([]);
  });
});

describe('emulator logs', () => {
  it('mask phone numbers and never contain the API secret', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const emulator = await startTestEmulator({
      logger: createLogger({ level: 'debug', destination }),
    });
    try {
      await emulator.send({ to: '33612345678', body: 'Hi' });
      await emulator.api('GET', '/sms/unknown');
      const log = lines.join('');
      expect(log).toContain('336•••••678');
      expect(log).not.toContain('33612345678');
      expect(log).not.toContain(paris.secret);
    } finally {
      await emulator.close();
    }
  });
});
