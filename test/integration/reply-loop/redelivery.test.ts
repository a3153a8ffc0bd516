import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import echo from '../../fixtures/bots/echo-bot.ts';
import { type ReplyLoop, replyNotification, startReplyLoop } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';

describe.each(['redis', 'cluster'] as const)(
  'a notification delivered many times (%s)',
  (store) => {
    let loop: ReplyLoop;
    beforeAll(async () => {
      loop = await startReplyLoop({
        store,
        registry: createBotRegistry([{ bot: echo, file: 'echo.ts' }]),
        // Fast enough that the emulator's own 10 retries fit in a test. The answer deadline
        // (4 s scaled to 4 ms) is 100 ms instead: on a loaded machine a real answer must not
        // count as a time-out too, or the reply is never delivered; hung ones still wait it out.
        emulator: { timeScale: 0.001, webhookRetry: { timeoutMs: 100_000 } },
      });
    });
    afterAll(() => loop.close());

    it('posted 11 times, 6 of them concurrently, gives one transition and one outbound message', async () => {
      const phone = '33612340011';
      const notification = replyNotification('n-redeliver-1', phone, 'ECHO once');
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push(await loop.notify(notification));
      statuses.push(
        ...(await Promise.all(Array.from({ length: 6 }, () => loop.notify(notification)))),
      );
      expect(statuses).toEqual(Array(11).fill(200));

      expect(await loop.waitForBodies(phone, 2)).toEqual([
        'Echo bot here. Say anything.',
        '#1: ECHO once',
      ]);
      // Give a wrongly duplicated event every chance to show up before checking.
      await waitFor(
        async () => (await loop.store.pendingOutbound({ location: 'paris', phone })).length === 0,
      );
      await new Promise((r) => setTimeout(r, 200));
      expect(await loop.bodiesTo(phone)).toHaveLength(2);
      const applied = await loop.store.listApplied({ location: 'paris', phone });
      // The rest are the sms.status notifications of the two answers.
      expect(applied.filter((id) => id.startsWith('n-redeliver'))).toEqual(['n-redeliver-1:0']);
      const record = await loop.store.getConversation({ location: 'paris', phone });
      expect((record!.snapshot as { context: { seen: string[] } }).context.seen).toEqual([
        'ECHO once',
      ]);
    });

    it('redelivered by the emulator itself (answers ignored as time-outs) is applied once', async () => {
      const phone = '33612340012';
      await loop.start(phone, 'echo');
      await loop.waitForBodies(phone, 1);
      // The next 10 deliveries (status or reply) reach replyflow but count as time-outs and are retried.
      await fetch(`${loop.emulator.url}/_emulator/webhook-faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ count: 10, mode: 'hang', url: loop.webhookUrl }),
      });
      await loop.reply(phone, 'hello');
      const attempts = await waitFor(
        async () => {
          const res = await fetch(`${loop.emulator.url}/_emulator/deliveries`);
          const entries = (await res.json()) as Array<{
            notificationId: string;
            outcome: string;
            event: string;
          }>;
          const replies = entries.filter((e) => e.event === 'sms.reply');
          return replies.at(-1)?.outcome === 'ok' && replies;
        },
        { timeout: 10_000, message: 'the reply notification delivered' },
      );
      expect(attempts.length).toBeGreaterThan(1);
      expect(new Set(attempts.map((e) => e.notificationId)).size).toBe(1);
      expect(attempts.slice(0, -1).every((e) => e.outcome === 'timeout')).toBe(true);

      expect(await loop.waitForBodies(phone, 2)).toEqual([
        'Echo bot here. Say anything.',
        '#1: hello',
      ]);
      await new Promise((r) => setTimeout(r, 200));
      expect(await loop.bodiesTo(phone)).toHaveLength(2);
    });
  },
);
