import express, { type Express } from 'express';
import type { Redis } from 'ioredis';
import { request } from 'undici';
import { type AnyMachineSnapshot, createActor } from 'xstate';
import type { SmsReplyEvent } from '../../src/bot/bot-events.ts';
import type { ReplyEmitted } from '../../src/bot/reply.ts';
import { baselineKey } from './baseline-app.ts';
import { echoMachine } from './echo-bot.ts';

export interface PeerOptions {
  redis: Redis;
  prefix: string;
  /** The messaging service's base URL, e.g. `http://127.0.0.1:1234/v1`. */
  providerUrl: string;
  keyPair: { id: string; secret: string };
  location: string;
  webhookSecret: string;
}

/**
 * The lean peer (issue 26): what a developer writes from the Express and XState docs, with
 * nothing of replyflow in the way of a turn. `express.json()`, an ioredis `GET` of the
 * snapshot, `createActor(machine, { snapshot })`, send the event, `SET` the snapshot, then a
 * plain undici `request` to `POST /sms` (the spec's two key headers and JSON body, `from`
 * empty), all inside the webhook request. No zod, no limiter, no retries, no messaging client;
 * and, like `baseline-client`, no dedupe, no lock, no outbox, no ordering. It keeps its
 * snapshots under the same keys as the baseline, so `turnsOf` reads them the same way.
 */
export function createPeerApp(options: PeerOptions): Express {
  const { redis, prefix } = options;
  const smsUrl = `${options.providerUrl.replace(/\/$/, '')}/sms`;
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json',
    'x-api-key-id': options.keyPair.id,
    'x-api-key-secret': options.keyPair.secret,
  };
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
      for (const text of replies) {
        const response = await request(smsUrl, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            from: '',
            to: phone,
            body: text,
            shortenUrls: false,
            isTransactional: false,
          }),
        });
        // The SMS the service accepted (its id is what a status notification refers to).
        await response.body.json();
        if (response.statusCode >= 300) throw new Error(`POST /sms: ${response.statusCode}`);
      }
      res.status(200).json({ received: true });
    } catch (error) {
      res.status(500).json({ error: (error as Error).message });
    }
  });
  return app;
}
