import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import echo from '../../fixtures/bots/echo-bot.ts';
import { type ReplyLoop, replyNotification, startReplyLoop } from '../../support/reply-loop.ts';
import { hasRedisServer, throwawayRedis } from '../../support/throwaway-redis.ts';
import { waitFor } from '../../support/wait-for.ts';

describe.skipIf(!hasRedisServer)('when Redis is down', () => {
  let redis: Awaited<ReturnType<typeof throwawayRedis>>;
  let loop: ReplyLoop;
  beforeAll(async () => {
    redis = await throwawayRedis();
    loop = await startReplyLoop({
      registry: createBotRegistry([{ bot: echo, file: 'echo.ts' }]),
      redisUrl: redis.url,
      // The emulator retries a failed delivery after 1 s × 2^n, scaled to 100 ms × 2^n.
      emulator: { timeScale: 0.1 },
    });
  });
  afterAll(async () => {
    await loop.close();
    await redis.stop();
  });

  it('the webhook answers 503 quickly, and the notification the service retries is processed once Redis is back', async () => {
    const phone = '33612340503';
    await loop.start(phone, 'echo');
    await loop.waitForBodies(phone, 1);

    await redis.stop();
    const started = Date.now();
    expect(await loop.notify(replyNotification('down-1', phone, 'ECHO are you there'))).toBe(503);
    // Well inside the service's 4 s deadline, so the service retries rather than timing out.
    expect(Date.now() - started).toBeLessThan(3_000);

    // The handset answers while Redis is down: the service's deliveries get 503 and are retried.
    await loop.reply(phone, 'ECHO again');
    await waitFor(
      async () => {
        const res = await fetch(`${loop.emulator.url}/_emulator/deliveries`);
        const entries = (await res.json()) as Array<{ event: string; httpStatus?: number }>;
        return entries.some((e) => e.event === 'sms.reply' && e.httpStatus === 503);
      },
      { message: 'a reply delivery answered 503' },
    );

    // This throwaway Redis keeps nothing, so the reply starts the echo bot afresh by its keyword.
    await redis.start();
    const bodies = await loop.waitForBodies(phone, 3, 15_000);
    expect(bodies.slice(1)).toEqual(['Echo bot here. Say anything.', '#1: ECHO again']);
  });
});
