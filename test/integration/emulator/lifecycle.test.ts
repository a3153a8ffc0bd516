import { afterEach, describe, expect, it } from 'vitest';
import { notificationSchema } from '../../../src/provider/schemas/notification.ts';
import { type NotifiedSms, notifiedSmsSchema } from '../../../src/provider/schemas/sms.ts';
import { waitFor } from '../../support/wait-for.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.ts';
import { mobile, startTestEmulator, type TestEmulator } from './harness.ts';

/**
 * The SMS objects the location's webhook got for one SMS, one per notification (delivery is at
 * least once), in the order of the status changes: notifications travel independently, so they
 * may arrive in another order.
 */
function notified(receiver: WebhookReceiver, id: string): NotifiedSms[] {
  const byNotification = new Map<string, NotifiedSms>();
  for (const request of receiver.received) {
    const envelope = notificationSchema.parse(request.body);
    byNotification.set(envelope.id, notifiedSmsSchema.parse(envelope.data[0]));
  }
  return [...byNotification.values()]
    .filter((sms) => sms.id === id)
    .sort((a, b) => a.updatedAt.localeCompare(b.updatedAt));
}

/** Waits until the webhook got `count` notifications for the SMS; returns `status:reason` of each. */
async function statusesSeen(
  receiver: WebhookReceiver,
  id: string,
  count: number,
): Promise<string[]> {
  await waitFor(() => notified(receiver, id).length >= count, {
    message: `${count} notifications`,
  });
  return notified(receiver, id).map(
    (sms) => `${sms.status}${sms.statusReason ? `:${sms.statusReason}` : ''}`,
  );
}

describe('SMS lifecycle (spec §3)', () => {
  let emulator: TestEmulator;
  let receiver: WebhookReceiver;
  afterEach(async () => {
    await emulator.close();
    await receiver.close();
  });

  async function start(options: Parameters<typeof startTestEmulator>[0] = {}) {
    emulator = await startTestEmulator(options);
    receiver = await startWebhookReceiver();
    await emulator.api('POST', '/webhooks', { url: receiver.url, events: ['sms.status'] });
  }

  async function balance(location = 'paris'): Promise<number> {
    return (await emulator.control('GET', `/locations/${location}/balance`)).body.balance;
  }

  it('goes pending → sent → delivered (DELIVRD), and charges parts × unit price once sent', async () => {
    await start({ unitPrice: 0.07, initialBalance: 10 });
    const sms = await emulator.send({ to: mobile(), body: 'Hi' });
    const delivered = await emulator.waitForStatus(sms.id, 'delivered');
    expect(delivered).toMatchObject({ statusReason: 'DELIVRD', parts: 1, price: 0.07 });
    expect(await statusesSeen(receiver, sms.id, 2)).toEqual(['sent', 'delivered:DELIVRD']);
    expect(await balance()).toBe(9.93);
  });

  it('counts parts with the GSM-7 / UCS-2 segment rules and prices every part', async () => {
    await start();
    const long = await emulator.send({ to: mobile(), body: 'a'.repeat(161) });
    const unicode = await emulator.send({
      to: mobile(),
      body: `${'é'.repeat(10)}🙂${'x'.repeat(60)}`,
    });
    expect(await emulator.waitForStatus(long.id, 'delivered')).toMatchObject({
      parts: 2,
      price: 0.1,
    });
    expect(await emulator.waitForStatus(unicode.id, 'delivered')).toMatchObject({
      parts: 2,
      price: 0.1,
    });
    expect(await balance()).toBe(999.8);
  });

  it('errors a message the balance cannot pay with insufficient_balance, price 0, never sent', async () => {
    await start({ initialBalance: 0.05 });
    const affordable = await emulator.send({ to: mobile(1), body: 'Hi' });
    await emulator.waitForStatus(affordable.id, 'delivered');
    const tooMuch = await emulator.send({ to: mobile(2), body: 'Hi' });
    const errored = await emulator.waitForStatus(tooMuch.id, 'errored');
    expect(errored).toMatchObject({ statusReason: 'insufficient_balance', price: 0 });
    expect(await statusesSeen(receiver, tooMuch.id, 1)).toEqual(['errored:insufficient_balance']);
    expect(await balance()).toBe(0);
  });

  it('charges the balance set through the control API', async () => {
    await start();
    await emulator.control('PUT', '/locations/paris/balance', { balance: 0.01 });
    const sms = await emulator.send({ to: mobile(), body: 'Hi' });
    expect((await emulator.waitForStatus(sms.id, 'errored')).statusReason).toBe(
      'insufficient_balance',
    );
    expect(await balance('lyon')).toBe(1000);
  });

  it('errors a number scripted invalid with invalid_phone_number, price 0, balance untouched', async () => {
    await start();
    await emulator.control('PUT', `/outcomes/${mobile(3)}`, { outcome: 'invalid' });
    const sms = await emulator.send({ to: mobile(3), body: 'Hi' });
    expect(await emulator.waitForStatus(sms.id, 'errored')).toMatchObject({
      statusReason: 'invalid_phone_number',
      price: 0,
    });
    expect(await statusesSeen(receiver, sms.id, 1)).toEqual(['errored:invalid_phone_number']);
    expect(await balance()).toBe(1000);
  });

  it('goes sent → errored (EXPIRED) for a number scripted expired, and keeps the price', async () => {
    await start();
    await emulator.control('PUT', `/outcomes/${mobile(4)}`, { outcome: 'expired' });
    const sms = await emulator.send({ to: mobile(4), body: 'Hi' });
    expect(await emulator.waitForStatus(sms.id, 'errored')).toMatchObject({
      statusReason: 'EXPIRED',
      price: 0.05,
    });
    expect(await statusesSeen(receiver, sms.id, 2)).toEqual(['sent', 'errored:EXPIRED']);
  });

  it('leaves a message to a silent handset sent, with no report', async () => {
    await start();
    await emulator.control('PUT', `/outcomes/${mobile(5)}`, { outcome: 'silent' });
    const silent = await emulator.send({ to: mobile(5), body: 'Hi' });
    const control = await emulator.send({ to: mobile(6), body: 'Hi' });
    // Both were scheduled together: once the other one is reported, the silent one's report is overdue.
    await emulator.waitForStatus(control.id, 'delivered');
    await statusesSeen(receiver, control.id, 2);
    expect((await emulator.api('GET', `/sms/${silent.id}`)).body.status).toBe('sent');
    expect(await statusesSeen(receiver, silent.id, 1)).toEqual(['sent']);
  });

  it('stamps createdAt and updatedAt in ISO 8601 UTC, and waits the scaled delays', async () => {
    // 1000 ms to sent and 400 ms more to the report, scaled to 100 ms and 40 ms.
    await start({ timeScale: 0.1, lifecycle: { sentAfterMs: 1000, reportAfterMs: 400 } });
    const sms = await emulator.send({ to: mobile(), body: 'Hi' });
    const pending = (await emulator.api('GET', `/sms/${sms.id}`)).body;
    expect(pending).toMatchObject({ status: 'pending', price: 0, parts: 1 });
    const delivered = await emulator.waitForStatus(sms.id, 'delivered');
    const utc = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
    expect(delivered.createdAt).toMatch(utc);
    expect(delivered.updatedAt).toMatch(utc);
    expect(delivered.createdAt).toBe(pending.createdAt);
    await statusesSeen(receiver, sms.id, 2);
    const [sent] = notified(receiver, sms.id);
    const createdAt = Date.parse(delivered.createdAt);
    const sentAt = Date.parse(sent?.updatedAt ?? '');
    expect(sentAt - createdAt).toBeGreaterThanOrEqual(99);
    expect(Date.parse(delivered.updatedAt) - sentAt).toBeGreaterThanOrEqual(39);
  });
});
