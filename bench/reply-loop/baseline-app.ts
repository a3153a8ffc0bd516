import express, { type Express } from 'express';
import type { Redis } from 'ioredis';
import { type AnyMachineSnapshot, createActor } from 'xstate';
import type { SmsReplyEvent } from '../../src/bot/bot-events.ts';
import type { ReplyEmitted } from '../../src/bot/reply.ts';
import type { MessagingClient } from '../../src/provider/messaging-client.ts';
import { echoMachine } from './echo-bot.ts';

export interface BaselineOptions {
  redis: Redis;
  prefix: string;
  client: MessagingClient;
  location: string;
  webhookSecret: string;
}

/** The key under which the baseline keeps a phone's snapshot. */
export function baselineKey(prefix: string, location: string, phone: string): string {
  return `${prefix}conv:${location}:${phone}`;
}

/**
 * The naive way to serve the same bot, with none of replyflow's guarantees: everything happens
 * inside the webhook request. GET the snapshot, `createActor(machine, { snapshot }).start()`,
 * send the event, collect the replies, SET the snapshot, `POST /sms`, then answer 200. No
 * dedupe (a redelivered notification is applied again), no lock (two concurrent replies of one
 * phone race and one update is lost), no outbox (a crash after SET loses the answer; a slow
 * service holds the webhook open), no ordering.
 */
export function createBaselineApp(options: BaselineOptions): Express {
  const { redis, prefix, client } = options;
  const app = express();
  app.disable('x-powered-by');
  app.post('/webhooks/:location/:secret', express.json({ limit: '256kb' }), async (req, res) => {
    if (req.params.location !== options.location || req.params.secret !== options.webhookSecret) {
      res.status(404).json({ error: 'not found' });
      return;
    }
    try {
      const item = req.body?.data?.[0];
      if (!item?.originSms) {
        res.status(200).json({ ignored: true });
        return;
      }
      const phone = String(item.from).replace(/^\+/, '');
      const key = baselineKey(prefix, options.location, phone);
      const stored = await redis.get(key);
      if (!stored && !/^echo\b/i.test(String(item.body))) {
        res.status(200).json({ ignored: true });
        return;
      }
      const actor = stored
        ? createActor(echoMachine, { snapshot: JSON.parse(stored) as AnyMachineSnapshot })
        : createActor(echoMachine, {
            input: { location: options.location, phone, input: { keyword: 'echo' } },
          });
      const replies: string[] = [];
      actor.on('replyflow.reply', (event) => {
        replies.push((event as unknown as ReplyEmitted).text);
      });
      actor.start();
      const event: SmsReplyEvent = {
        type: 'sms.reply',
        body: String(item.body),
        from: phone,
        receivedAt: new Date().toISOString(),
        originSmsId: String(item.originSms.id),
      };
      actor.send(event);
      const snapshot = actor.getPersistedSnapshot();
      actor.stop();
      await redis.set(key, JSON.stringify(snapshot));
      for (const text of replies) await client.sms.send({ to: phone, body: text, from: '' });
      res.status(200).json({ received: true });
    } catch (error) {
      res.status(500).json({ error: (error as Error).message });
    }
  });
  return app;
}
