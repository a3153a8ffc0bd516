import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apiErrorBodySchema } from '../../../src/provider/schemas/api-error.ts';
import { lyon, mobile, paris, startTestEmulator, type TestEmulator } from './harness.ts';

describe('emulator auth (spec §5)', () => {
  let emulator: TestEmulator;
  beforeEach(async () => {
    emulator = await startTestEmulator();
  });
  afterEach(() => emulator.close());

  const endpoints: Array<[string, string, unknown?]> = [
    ['POST', '/sms', { to: mobile(), body: 'Hi' }],
    ['GET', '/sms/some-id'],
    ['POST', '/webhooks', { url: 'http://127.0.0.1:1/hooks', events: ['sms.status'] }],
    ['GET', '/webhooks'],
    ['DELETE', '/webhooks/some-id'],
    ['GET', '/groups'],
    ['POST', '/groups', { name: 'VIP' }],
    ['POST', '/groups/1/contacts', { contactEmailAddress: 'a@b.fr' }],
    ['GET', '/customColumns'],
  ];

  it.each(endpoints)(
    'refuses %s %s without credentials with 401 and the error body',
    async (method, path, body) => {
      const answer = await emulator.api(method, path, body, null);
      expect(answer.status).toBe(401);
      expect(apiErrorBodySchema.parse(answer.body).error).toMatchObject({
        status: 401,
        code: 'UNAUTHORIZED',
      });
    },
  );

  it('refuses a key id without its secret, a wrong secret and an unknown key id', async () => {
    const onlyId = await fetch(`${emulator.baseUrl}/webhooks`, {
      headers: { 'x-api-key-id': paris.id },
    });
    const wrongSecret = await emulator.api('GET', '/webhooks', undefined, {
      ...paris,
      secret: 'nope',
    });
    const otherPairsSecret = await emulator.api('GET', '/webhooks', undefined, {
      ...paris,
      secret: lyon.secret,
    });
    const unknownId = await emulator.api('GET', '/webhooks', undefined, { ...paris, id: 'who' });
    expect([onlyId.status, wrongSecret.status, otherPairsSecret.status, unknownId.status]).toEqual([
      401, 401, 401, 401,
    ]);
    expect(await emulator.control('GET', '/messages')).toMatchObject({ body: [] });
  });

  it('accepts the right key pair', async () => {
    expect((await emulator.api('GET', '/webhooks')).status).toBe(200);
    expect((await emulator.api('GET', '/webhooks', undefined, lyon)).status).toBe(200);
  });

  it("answers 404 for another location's sms", async () => {
    const sms = await emulator.send({ to: mobile(), body: 'Hi' }, paris);
    expect((await emulator.api('GET', `/sms/${sms.id}`, undefined, paris)).status).toBe(200);
    const fromLyon = await emulator.api('GET', `/sms/${sms.id}`, undefined, lyon);
    expect(fromLyon.status).toBe(404);
    expect(apiErrorBodySchema.parse(fromLyon.body).error.code).toBe('NOT_FOUND');
  });

  it("neither lists nor deletes another location's webhooks", async () => {
    const created = await emulator.api('POST', '/webhooks', {
      url: 'http://127.0.0.1:1/hooks',
      events: ['sms.status'],
    });
    expect((await emulator.api('GET', '/webhooks', undefined, lyon)).body).toEqual([]);
    expect(
      (await emulator.api('DELETE', `/webhooks/${created.body.id}`, undefined, lyon)).status,
    ).toBe(404);
    expect((await emulator.api('GET', '/webhooks', undefined, paris)).body).toEqual([created.body]);
  });

  it("neither lists nor fills another location's groups", async () => {
    const group = await emulator.api('POST', '/groups', { name: 'VIP' }, paris);
    expect((await emulator.api('GET', '/groups', undefined, lyon)).body).toEqual([]);
    const contact = { contactEmailAddress: 'a@b.fr' };
    expect(
      (await emulator.api('POST', `/groups/${group.body.id}/contacts`, contact, lyon)).status,
    ).toBe(404);
    expect(
      (await emulator.api('POST', `/groups/${group.body.id}/contacts`, contact, paris)).status,
    ).toBe(201);
  });
});
