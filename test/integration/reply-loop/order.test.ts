import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import type { IngestItem } from '../../../src/store/store.ts';
import echo from '../../fixtures/bots/echo-bot.ts';
import { type ReplyLoop, replyNotification, startReplyLoop } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';

describe.each(['redis', 'cluster', 'memory'] as const)(
  'replies of one phone on the %s store',
  (store) => {
    let loop: ReplyLoop;
    beforeAll(async () => {
      loop = await startReplyLoop({
        store,
        registry: createBotRegistry([{ bot: echo, file: 'echo.ts' }]),
      });
    });
    afterAll(() => loop.close());

    it('50 posted concurrently are applied in ingestion order', async () => {
      const phone = '33612340050';
      // Record the order in which the store took the events in. One Redis connection answers in
      // the order it executed, so resolution order is ingestion order. A reply stepped in its
      // request (a direct turn) is taken in by its commit.
      const ingested: string[] = [];
      const ingest = loop.store.ingest.bind(loop.store);
      loop.store.ingest = async (id: string, items: IngestItem[], now: number) => {
        const result = await ingest(id, items, now);
        for (const item of items) if (item.event.kind === 'reply') ingested.push(item.event.body);
        return result;
      };
      const commitDirect = loop.store.commitDirect.bind(loop.store);
      loop.store.commitDirect = async (event, step, now, fields) => {
        const result = await commitDirect(event, step, now, fields);
        if (result.ok && event.kind === 'reply') ingested.push(event.body);
        return result;
      };
      expect(await loop.notify(replyNotification('order-start', phone, 'ECHO start'))).toBe(200);
      const bodies = Array.from({ length: 50 }, (_, i) => `m${i + 1}`);
      const statuses = await Promise.all(
        bodies.map((body) => loop.notify(replyNotification(`order-${body}`, phone, body))),
      );
      expect(statuses.every((s) => s === 200)).toBe(true);

      const seen = await waitFor(
        async () => {
          const record = await loop.store.getConversation({ location: 'paris', phone });
          const list = (record?.snapshot as { context: { seen: string[] } } | undefined)?.context
            .seen;
          return list?.length === 51 && list;
        },
        { timeout: 15_000, message: '51 replies applied' },
      );
      expect(seen).toEqual(ingested);
      expect([...seen].sort()).toEqual(['ECHO start', ...bodies].sort());
      // The answers go out in the same order, numbered by turn.
      const sent = await loop.waitForBodies(phone, 52, 15_000);
      expect(sent.slice(1)).toEqual(seen.map((body, i) => `#${i + 1}: ${body}`));
    });
  },
);
