import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../support/wait-for.ts';
import { mobile, startTestEmulator, type TestEmulator } from './harness.ts';

describe('one-shot delivery failures and pending work (control API)', () => {
  let emulator: TestEmulator;
  afterEach(() => emulator?.close());

  it('errors only the next SMS to the number, after sent, with the armed reason', async () => {
    emulator = await startTestEmulator();
    const armed = await emulator.control('POST', '/delivery-failures', {
      to: mobile(1),
      statusReason: 'EXPIRED',
    });
    expect(armed.status).toBe(201);
    expect((await emulator.control('GET', '/delivery-failures')).body).toEqual([
      { to: mobile(1), statusReason: 'EXPIRED' },
    ]);
    const other = await emulator.send({ to: mobile(2), body: 'Hi' });
    const first = await emulator.send({ to: mobile(1), body: 'Hi' });
    const second = await emulator.send({ to: mobile(1), body: 'Hi again' });
    expect(await emulator.waitForStatus(first.id, 'errored')).toMatchObject({
      statusReason: 'EXPIRED',
      price: 0.05,
    });
    await emulator.waitForStatus(second.id, 'delivered');
    await emulator.waitForStatus(other.id, 'delivered');
    expect((await emulator.control('GET', '/delivery-failures')).body).toEqual([]);
  });

  it('errors before sending, price 0, for invalid_phone_number and insufficient_balance', async () => {
    emulator = await startTestEmulator();
    await emulator.control('POST', '/delivery-failures', {
      to: mobile(3),
      statusReason: 'insufficient_balance',
    });
    const sms = await emulator.send({ to: mobile(3), body: 'Hi' });
    expect(await emulator.waitForStatus(sms.id, 'errored')).toMatchObject({
      statusReason: 'insufficient_balance',
      price: 0,
    });
  });

  it('refuses a failure with no reason or a malformed number, with a clear 400', async () => {
    emulator = await startTestEmulator();
    const noReason = await emulator.control('POST', '/delivery-failures', {
      to: mobile(1),
      statusReason: ' ',
    });
    expect(noReason.status).toBe(400);
    expect(noReason.body.error.message).toMatch(/reason/);
    const badNumber = await emulator.control('POST', '/delivery-failures', {
      to: '+33 6',
      statusReason: 'EXPIRED',
    });
    expect(badNumber.status).toBe(400);
  });

  it('counts pending work until the lifecycle of every message is over', async () => {
    // 200 ms to sent (scaled), so the count is read while the message is still pending.
    emulator = await startTestEmulator({ lifecycle: { sentAfterMs: 20_000, reportAfterMs: 100 } });
    expect((await emulator.control('GET', '/pending-work')).body).toEqual({ count: 0 });
    const sms = await emulator.send({ to: mobile(4), body: 'Hi' });
    expect((await emulator.control('GET', '/pending-work')).body.count).toBeGreaterThan(0);
    await emulator.waitForStatus(sms.id, 'delivered');
    await waitFor(async () => (await emulator.control('GET', '/pending-work')).body.count === 0, {
      message: 'no pending work',
    });
  });
});
