import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import appointment from '../../../bots/appointment.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { newEventSecret } from '../../../src/events/event-secret.ts';
import type { OutboundEvent } from '../../../src/events/outbound-event.ts';
import { signedEvent } from '../../support/event-receiver.ts';
import { type ReplyLoop, startReplyLoop } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';

const secret = newEventSecret();
const hour = 3_600_000;
/** An appointment three days from now, on the hour. */
const at = new Date(Math.ceil(Date.now() / hour) * hour + 72 * hour).toISOString();
const phones = { confirms: '33612348101', cancels: '33612348102', reschedules: '33612348103' };

describe('the reference appointment bot tells the booking system how each appointment ended (Redis, emulator, a receiver on loopback)', () => {
  let loop: ReplyLoop;
  const received: OutboundEvent[] = [];
  let close: () => Promise<void>;

  beforeAll(async () => {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        // Verified as a receiver would: the signature, the timestamp.
        const event = signedEvent(secret, req, Buffer.concat(chunks).toString('utf8'), res);
        if (!event) return;
        received.push(event);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    close = async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    };
    loop = await startReplyLoop({
      registry: createBotRegistry([{ bot: appointment, file: 'bots/appointment.ts' }]),
      events: [
        {
          url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/booking`,
          secret,
          types: ['appointment.confirmed', 'appointment.cancelled', 'appointment.rescheduled'],
          allowPrivateAddresses: true,
        },
      ],
      eventDispatcher: { pollMs: 5, baseBackoffMs: 10, maxBackoffMs: 50 },
    });
    const input = { name: 'Ana', at, place: '12 rue de la Paix' };
    for (const phone of Object.values(phones)) await loop.start(phone, 'appointment', input);
    for (const phone of Object.values(phones)) await loop.waitForBodies(phone, 1);
    const say = async (phone: string, body: string, count: number) => {
      await loop.reply(phone, body);
      await loop.waitForBodies(phone, count);
    };
    await say(phones.confirms, 'oui', 2);
    await say(phones.cancels, 'non', 2);
    await say(phones.cancels, 'annuler', 3);
    await say(phones.reschedules, 'non', 2);
    await say(phones.reschedules, 'jeudi 14h', 3);
    await say(phones.reschedules, 'oui', 4);
    await waitFor(() => received.length >= 3 || undefined, {
      timeout: 15_000,
      message: 'three outcomes received',
    });
  }, 60_000);
  afterAll(async () => {
    await loop?.close();
    await close?.();
  });

  it('sends appointment.confirmed, appointment.cancelled and appointment.rescheduled with the new time', async () => {
    const byPhone = new Map(received.map((event) => [event.data.phone, event]));
    expect(byPhone.get(phones.confirms)).toMatchObject({
      type: 'appointment.confirmed',
      data: { location: 'paris', bot: 'appointment', payload: { at } },
    });
    expect(byPhone.get(phones.cancels)).toMatchObject({
      type: 'appointment.cancelled',
      data: { bot: 'appointment', payload: { at } },
    });
    const rescheduled = byPhone.get(phones.reschedules);
    expect(rescheduled).toMatchObject({
      type: 'appointment.rescheduled',
      data: { bot: 'appointment', payload: { previousAt: at } },
    });
    // The new time is the one the person agreed to, as the bot recorded it: a Thursday, 14:00
    // in the bot's time zone (Paris), after the request.
    const newAt = String(rescheduled?.data.payload.at);
    const result = await loop.store.getConversation({
      location: 'paris',
      phone: phones.reschedules,
    });
    expect(newAt).toBe((result?.result as { proposedAt?: string } | undefined)?.proposedAt);
    const parts = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Europe/Paris',
      weekday: 'long',
      hour: '2-digit',
      minute: '2-digit',
    }).format(new Date(newAt));
    expect(parts).toBe('Thursday 14:00');
    // One of each, each once.
    expect(received.map((event) => event.id)).toHaveLength(new Set(received.map((e) => e.id)).size);
    expect(received).toHaveLength(3);
  });
});
