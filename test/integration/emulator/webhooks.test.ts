import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apiErrorBodySchema } from '../../../src/provider/schemas/api-error.ts';
import {
  type Notification,
  notificationSchema,
} from '../../../src/provider/schemas/notification.ts';
import { replySchema } from '../../../src/provider/schemas/reply.ts';
import { notifiedSmsSchema } from '../../../src/provider/schemas/sms.ts';
import { webhookSchema } from '../../../src/provider/schemas/webhook.ts';
import { waitFor } from '../../support/wait-for.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.ts';
import { lyon, mobile, startTestEmulator, type TestEmulator } from './harness.ts';

/**
 * The distinct notifications a receiver got. Delivery is at least once: on a loaded machine a
 * slow answer times out and the same notification comes again, which the delivery tests cover.
 */
function envelopes(receiver: WebhookReceiver): Notification[] {
  const byId = new Map<string, Notification>();
  for (const request of receiver.received) {
    const envelope = notificationSchema.parse(request.body);
    byId.set(envelope.id, envelope);
  }
  return [...byId.values()];
}

describe('webhook registration (spec §2.6, §4)', () => {
  let emulator: TestEmulator;
  beforeEach(async () => {
    emulator = await startTestEmulator();
  });
  afterEach(() => emulator.close());

  it('creates a {id, url, events} record, lists it, and deletes it with DELETE /webhooks/{id}', async () => {
    const request = { url: 'http://127.0.0.1:9/hooks', events: ['sms.status', 'sms.reply'] };
    const created = await emulator.api('POST', '/webhooks', request);
    expect(created.status).toBe(201);
    expect(webhookSchema.strict().parse(created.body)).toEqual({
      ...request,
      id: expect.any(String),
    });
    expect((await emulator.api('GET', '/webhooks')).body).toEqual([created.body]);
    expect((await emulator.api('DELETE', `/webhooks/${created.body.id}`)).status).toBe(204);
    expect((await emulator.api('GET', '/webhooks')).body).toEqual([]);
  });

  it('answers 404 when deleting an unknown webhook', async () => {
    const answer = await emulator.api('DELETE', '/webhooks/nope');
    expect(answer.status).toBe(404);
    expect(apiErrorBodySchema.parse(answer.body).error.code).toBe('NOT_FOUND');
  });

  it.each([
    [{ events: ['sms.status'] }, 'url'],
    [{ url: 'not a url', events: ['sms.status'] }, 'url'],
    [{ url: 'ftp://127.0.0.1/x', events: ['sms.status'] }, 'url'],
    [{ url: 'http://127.0.0.1/x' }, 'events'],
    [{ url: 'http://127.0.0.1/x', events: [] }, 'events'],
    [{ url: 'http://127.0.0.1/x', events: ['sms.sent'] }, 'events.0'],
  ])('refuses %j with 400 naming %s', async (request, field) => {
    const answer = await emulator.api('POST', '/webhooks', request);
    expect(answer.status).toBe(400);
    expect(apiErrorBodySchema.parse(answer.body).error.field).toBe(field);
  });
});

describe('notifications (spec §2.7, §6)', () => {
  let emulator: TestEmulator;
  let statusHook: WebhookReceiver;
  let replyHook: WebhookReceiver;
  let statusHookId: string;
  let replyHookId: string;

  async function start(options: Parameters<typeof startTestEmulator>[0] = {}) {
    emulator = await startTestEmulator(options);
    statusHook = await startWebhookReceiver();
    replyHook = await startWebhookReceiver();
    statusHookId = (
      await emulator.api('POST', '/webhooks', { url: statusHook.url, events: ['sms.status'] })
    ).body.id;
    replyHookId = (
      await emulator.api('POST', '/webhooks', { url: replyHook.url, events: ['sms.reply'] })
    ).body.id;
  }
  afterEach(async () => {
    await emulator.close();
    await statusHook.close();
    await replyHook.close();
  });

  async function deliveredSms(request: Record<string, unknown>) {
    const sms = await emulator.send(request);
    await emulator.waitForStatus(sms.id, 'delivered');
    // Both status notifications, which travel independently and may arrive in either order.
    await waitFor(
      () =>
        envelopes(statusHook).filter((e) => (e.data[0] as { id: string }).id === sms.id).length ===
        2,
    );
    return sms;
  }

  it('posts sms.status envelopes on sent and delivered, with the full SMS in data', async () => {
    await start();
    const sms = await deliveredSms({ to: mobile(), body: 'Hi' });
    const received = envelopes(statusHook);
    expect(received).toHaveLength(2);
    for (const envelope of received) {
      expect(envelope).toMatchObject({ webhookId: statusHookId, type: 'sms.status' });
      expect(envelope.data).toHaveLength(1);
      expect(notifiedSmsSchema.strict().parse(envelope.data[0]).id).toBe(sms.id);
    }
    const statuses = received.map((e) => (e.data[0] as { status: string }).status);
    expect(statuses.sort()).toEqual(['delivered', 'sent']);
    expect(received[0]?.id).not.toBe(received[1]?.id);
    expect(statusHook.received[0]?.headers['content-type']).toContain('application/json');
    expect(replyHook.received).toEqual([]);
  });

  it("sends nothing to another location's webhook", async () => {
    await start();
    const lyonHook = await startWebhookReceiver();
    try {
      await emulator.api(
        'POST',
        '/webhooks',
        { url: lyonHook.url, events: ['sms.status', 'sms.reply'] },
        lyon,
      );
      await deliveredSms({ to: mobile(), body: 'Hi' });
      await emulator.control('POST', '/replies', { from: mobile(), body: 'yes' });
      await waitFor(() => envelopes(replyHook).length === 1);
      expect(lyonHook.received).toEqual([]);
    } finally {
      await lyonHook.close();
    }
  });

  it('stops notifying a deleted webhook', async () => {
    await start();
    await emulator.api('DELETE', `/webhooks/${statusHookId}`);
    const sms = await emulator.send({ to: mobile(), body: 'Hi' });
    await emulator.waitForStatus(sms.id, 'delivered');
    expect(statusHook.received).toEqual([]);
  });

  it('posts sms.reply when the handset answers a short-code message, typed sms.status like the spec sample', async () => {
    await start();
    const sms = await deliveredSms({ to: mobile(), body: 'Coming tomorrow?' });
    const answer = await emulator.control('POST', '/replies', { from: mobile(), body: 'YES' });
    expect(answer.status).toBe(201);
    expect(answer.body.notified).toBe(true);
    await waitFor(() => envelopes(replyHook).length === 1);
    const [envelope] = envelopes(replyHook);
    expect(envelope).toMatchObject({ webhookId: replyHookId, type: 'sms.status' });
    const reply = replySchema.parse(envelope?.data[0]);
    expect(reply).toMatchObject({ body: 'YES', from: mobile(), to: '38200' });
    expect(reply.originSms).toMatchObject({
      id: sms.id,
      status: 'received',
      body: 'Coming tomorrow?',
      from: '',
    });
    expect(answer.body.reply).toEqual(reply);
    // The reply is not a status change of the original message.
    expect((await emulator.api('GET', `/sms/${sms.id}`)).body.status).toBe('delivered');
    expect(envelopes(statusHook)).toHaveLength(2);
  });

  it('types the reply envelope sms.reply with replyEnvelopeType, and uses the configured short code', async () => {
    await start({ replyEnvelopeType: 'sms.reply', shortCode: '36111' });
    await deliveredSms({ to: mobile(), body: 'Hi' });
    await emulator.control('POST', '/replies', { from: mobile(), body: 'STOP' });
    await waitFor(() => envelopes(replyHook).length === 1);
    const [envelope] = envelopes(replyHook);
    expect(envelope?.type).toBe('sms.reply');
    expect(replySchema.parse(envelope?.data[0]).to).toBe('36111');
  });

  it('sends no sms.reply for a message sent from a custom sender', async () => {
    await start();
    await deliveredSms({ from: 'Clinic', to: mobile(), body: 'Hi' });
    const answer = await emulator.control('POST', '/replies', { from: mobile(), body: 'YES' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      notified: false,
      reason: expect.stringContaining('short code'),
    });
    // The status notifications arrive; a reply would have been sent at once.
    const sms = await emulator.send({ to: mobile(9), body: 'flush' });
    await emulator.waitForStatus(sms.id, 'delivered');
    expect(replyHook.received).toEqual([]);
  });
});
