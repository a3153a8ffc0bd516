import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import echo from '../../fixtures/bots/echo-bot.ts';
import reminder from '../../fixtures/bots/reminder-bot.ts';
import { countCommands } from '../../support/count-commands.ts';
import { type ReplyLoop, settle, startReplyLoop } from '../../support/reply-loop.ts';
import {
  hasRedisServer,
  type ThrowawayRedis,
  throwawayRedis,
} from '../../support/throwaway-redis.ts';

/** DESIGN §2.7: an idle process makes at most this many Redis commands a second. */
const idleBudgetPerSecond = 20;

describe.skipIf(!hasRedisServer)('an idle replyflow process', () => {
  let server: ThrowawayRedis;
  let loop: ReplyLoop;
  let counter: Redis;
  beforeAll(async () => {
    // A Redis of its own: every command it runs is this process's.
    server = await throwawayRedis();
    counter = new Redis(server.url);
    loop = await startReplyLoop({
      redisUrl: server.url,
      registry: createBotRegistry([
        { bot: echo, file: 'echo-bot.ts' },
        { bot: reminder, file: 'reminder-bot.ts' },
      ]),
    });
  });
  afterAll(async () => {
    await loop?.close();
    counter?.disconnect();
    await server?.stop();
  });

  it('makes at most 20 Redis commands a second once its conversations have settled, with every role running', async () => {
    // Every path first: ingest, claims, commits, sends, statuses, timers set (the reminder's).
    const phones = ['33612349001', '33612349002', '33612349003'];
    for (const phone of phones) await loop.start(phone, 'echo');
    await loop.start('33612349004', 'reminder');
    for (const phone of phones) {
      await loop.waitForBodies(phone, 1);
      await loop.reply(phone, 'hello');
      await loop.waitForBodies(phone, 2);
    }
    await loop.waitForBodies('33612349004', 1);
    for (const phone of [...phones, '33612349004']) await settle(loop, phone);
    // The emulator's delivery statuses come a little after each send.
    await new Promise((resolve) => setTimeout(resolve, 2_000));

    const rate = await countCommands(counter, 5_000);
    expect(
      rate.perSecond,
      `idle commands/s ${rate.perSecond.toFixed(1)}: ${JSON.stringify(rate.byCommand)}`,
    ).toBeLessThanOrEqual(idleBudgetPerSecond);
  }, 30_000);
});
