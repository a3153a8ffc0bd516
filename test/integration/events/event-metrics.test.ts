import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import type { BotEvent } from '../../../src/bot/bot-events.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { defineBot } from '../../../src/bot/define-bot.ts';
import { record } from '../../../src/bot/record.ts';
import { reply } from '../../../src/bot/reply.ts';
import { newEventSecret } from '../../../src/events/event-secret.ts';
import { signedEvent } from '../../support/event-receiver.ts';
import { type ReplyLoop, startReplyLoop } from '../../support/reply-loop.ts';
import { scrapeMetrics } from '../../support/scrape-metrics.ts';
import { waitFor } from '../../support/wait-for.ts';

const survey = defineBot({
  id: 'survey',
  machine: setup({ types: { events: {} as BotEvent } }).createMachine({
    initial: 'asking',
    states: {
      asking: {
        entry: reply('Score 0-10?'),
        on: {
          'sms.reply': {
            target: 'done',
            actions: record(({ event }) => ({
              score: Number(event.type === 'sms.reply' ? event.body : NaN),
            })),
          },
        },
      },
      done: { type: 'final', entry: reply('Thanks.') },
    },
  }),
});

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('the outbound webhook metrics, on redis', () => {
  it('count delivery rounds by result and time them, as /metrics shows', {
    timeout: 60_000,
  }, async () => {
    const secret = newEventSecret();
    const seen = new Map<string, number>();
    // conversation.started fails once then is taken; result.recorded is refused for good;
    // conversation.ended is taken at once: 2 delivered, 1 retry, 1 dead letter, 4 rounds.
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const event = signedEvent(secret, req, Buffer.concat(chunks), res);
        if (!event) return;
        const n = (seen.get(event.type) ?? 0) + 1;
        seen.set(event.type, n);
        const status =
          event.type === 'result.recorded'
            ? 400
            : event.type === 'conversation.started' && n === 1
              ? 503
              : 204;
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    const loop: ReplyLoop = await startReplyLoop({
      registry: createBotRegistry([{ bot: survey, file: 'survey.ts' }]),
      events: [
        {
          url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
          secret,
          allowPrivateAddresses: true,
        },
      ],
      eventDispatcher: { pollMs: 5, baseBackoffMs: 10, maxBackoffMs: 50 },
    });
    cleanups.push(() => loop.close());
    const before = await scrapeMetrics(`${loop.app.url}/metrics`);
    for (const result of ['delivered', 'retry', 'dead_letter']) {
      // Each result is there from the start, at 0, so a rate over it is defined.
      expect(before.text).toContain(`replyflow_outbound_webhooks_total{result="${result}"} 0`);
    }

    const phone = '33612347001';
    await loop.start(phone, 'survey');
    await loop.waitForBodies(phone, 1);
    await loop.reply(phone, '9');
    await loop.waitForBodies(phone, 2);
    await waitFor(
      async () =>
        (await loop.store.listEvents({ limit: 10 })).length === 0 &&
        (await loop.store.listEvents({ failed: true, limit: 10 })).length === 1,
      { timeout: 20_000, message: 'every event settled' },
    );

    const after = await scrapeMetrics(`${loop.app.url}/metrics`);
    const total = (result: string) => after.value('replyflow_outbound_webhooks_total', { result });
    expect({
      delivered: total('delivered'),
      retry: total('retry'),
      dead_letter: total('dead_letter'),
    }).toEqual({ delivered: 2, retry: 1, dead_letter: 1 });
    expect(after.value('replyflow_outbound_webhook_duration_seconds_count')).toBe(4);
    expect(after.value('replyflow_outbound_webhook_duration_seconds_sum')).toBeGreaterThan(0);
    expect(after.value('replyflow_outbound_webhook_duration_seconds_bucket', { le: '+Inf' })).toBe(
      4,
    );
  });
});
