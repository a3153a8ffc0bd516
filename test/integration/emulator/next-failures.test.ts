import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mobile, startTestEmulator, type TestEmulator } from './harness.ts';

describe('one-shot failures (/_emulator/next-failures)', () => {
  let emulator: TestEmulator;
  beforeEach(async () => {
    emulator = await startTestEmulator();
  });
  afterEach(() => emulator.close());

  it.each([
    ['EXPIRED', 0.05],
    ['invalid_phone_number', 0],
    ['insufficient_balance', 0],
  ])('fails only the next SMS to that phone with %s (price %s)', async (reason, price) => {
    const armed = await emulator.control('POST', '/next-failures', { phone: mobile(1), reason });
    expect(armed.status).toBe(201);
    expect((await emulator.control('GET', '/next-failures')).body).toEqual([
      { phone: mobile(1), reasons: [reason] },
    ]);
    const other = await emulator.send({ to: mobile(2), body: 'not this one' });
    const doomed = await emulator.send({ to: mobile(1), body: 'this one' });
    const next = await emulator.send({ to: mobile(1), body: 'and not this one' });
    expect((await emulator.control('GET', '/next-failures')).body).toEqual([]);
    expect(await emulator.waitForStatus(doomed.id, 'errored')).toMatchObject({
      statusReason: reason,
      price,
    });
    expect((await emulator.waitForStatus(next.id, 'delivered')).statusReason).toBe('DELIVRD');
    expect((await emulator.waitForStatus(other.id, 'delivered')).statusReason).toBe('DELIVRD');
  });

  it('refuses an unknown reason, and a reset disarms', async () => {
    const refused = await emulator.control('POST', '/next-failures', {
      phone: mobile(1),
      reason: 'LOST',
    });
    expect(refused.status).toBe(400);
    await emulator.control('POST', '/next-failures', { phone: mobile(1), reason: 'EXPIRED' });
    await emulator.control('POST', '/reset');
    expect((await emulator.control('GET', '/next-failures')).body).toEqual([]);
    const sms = await emulator.send({ to: mobile(1), body: 'fine' });
    expect((await emulator.waitForStatus(sms.id, 'delivered')).status).toBe('delivered');
  });
});
