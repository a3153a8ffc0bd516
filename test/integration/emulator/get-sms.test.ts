import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apiErrorBodySchema } from '../../../src/provider/schemas/api-error.ts';
import { notifiedSmsSchema } from '../../../src/provider/schemas/sms.ts';
import { mobile, startTestEmulator, type TestEmulator } from './harness.ts';

describe('GET /sms/{id} (spec §4)', () => {
  let emulator: TestEmulator;
  beforeEach(async () => {
    emulator = await startTestEmulator();
  });
  afterEach(() => emulator.close());

  it('returns the full SMS: request fields, status, statusReason, price, parts and timestamps', async () => {
    const sent = await emulator.send({
      from: 'Clinic',
      to: mobile(),
      body: 'See you at 9',
      isTransactional: true,
    });
    await emulator.waitForStatus(sent.id, 'delivered');
    const answer = await emulator.api('GET', `/sms/${sent.id}`);
    expect(answer.status).toBe(200);
    expect(notifiedSmsSchema.strict().parse(answer.body)).toEqual({
      from: 'Clinic',
      to: mobile(),
      body: 'See you at 9',
      shortenUrls: false,
      isTransactional: true,
      id: sent.id,
      status: 'delivered',
      statusReason: 'DELIVRD',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      price: 0.05,
      parts: 1,
    });
  });

  it('returns the statusReason of an errored message (2023-06-07 change)', async () => {
    await emulator.control('PUT', `/outcomes/${mobile(1)}`, { outcome: 'expired' });
    const sent = await emulator.send({ to: mobile(1), body: 'Hi' });
    await emulator.waitForStatus(sent.id, 'errored');
    expect((await emulator.api('GET', `/sms/${sent.id}`)).body.statusReason).toBe('EXPIRED');
  });

  it('answers 404 with the error body for an unknown id', async () => {
    const answer = await emulator.api('GET', '/sms/does-not-exist');
    expect(answer.status).toBe(404);
    expect(apiErrorBodySchema.parse(answer.body).error).toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
    });
  });

  it('answers 404 with the error body for an unknown route', async () => {
    const answer = await emulator.api('GET', '/nothing-here');
    expect(answer.status).toBe(404);
    expect(apiErrorBodySchema.parse(answer.body).error.code).toBe('NOT_FOUND');
  });
});
