import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import echo from '../../fixtures/bots/echo-bot.ts';
import {
  location,
  type ReplyLoop,
  replyNotification,
  startReplyLoop,
  webhookSecret,
} from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';

describe('a bot that throws, and what the logs say', () => {
  const lines: Array<Record<string, unknown>> = [];
  let raw = '';
  let loop: ReplyLoop;
  beforeAll(async () => {
    const capture = new Writable({
      write(chunk, _encoding, done) {
        raw += chunk.toString();
        for (const line of chunk.toString().split('\n').filter(Boolean))
          lines.push(JSON.parse(line));
        done();
      },
    });
    loop = await startReplyLoop({
      registry: createBotRegistry([{ bot: echo, file: 'echo.ts' }]),
      logStream: capture,
    });
  });
  afterAll(() => loop.close());

  it('marks only that conversation errored, logs bot, masked phone and event, and keeps working', async () => {
    const phone = '33612345678';
    expect(await loop.notify(replyNotification('boom-0', phone, 'ECHO'))).toBe(200);
    await loop.waitForBodies(phone, 2);
    expect(await loop.notify(replyNotification('boom-1', phone, 'boom'))).toBe(200);

    const logged = await waitFor(() => lines.find((l) => l.code === 'BOT_THREW'), {
      message: 'a BOT_THREW log line',
    });
    expect(logged).toMatchObject({
      bot: 'echo',
      location,
      conversation: '336•••••678',
      event: 'boom-1:0',
      kind: 'reply',
      level: 50,
    });
    expect(JSON.stringify(logged.err)).toMatch(/the bot blew up/);
    const record = await loop.store.getConversation({ location, phone });
    expect(record).toMatchObject({ status: 'errored', endedReason: 'BOT_THREW' });

    // The worker goes on: another phone's conversation still works.
    const other = '33612345679';
    expect(await loop.notify(replyNotification('boom-2', other, 'ECHO after'))).toBe(200);
    expect(await loop.waitForBodies(other, 2)).toEqual([
      'Echo bot here. Say anything.',
      '#1: ECHO after',
    ]);
  });

  it('never writes a full phone number or a secret into the logs', async () => {
    // A webhook with a wrong secret, and a refused body, log too.
    await fetch(`${loop.app.url}/webhooks/${location}/wrong-secret`, {
      method: 'POST',
      body: '{}',
    });
    await loop.notify('{not json');
    await waitFor(() => lines.some((l) => l.msg === 'notification refused'));
    expect(lines.length).toBeGreaterThan(5);
    expect(raw).not.toContain('33612345678');
    expect(raw).not.toContain('33612345679');
    expect(raw).not.toContain(webhookSecret);
    expect(raw).not.toMatch(/"s"|keySecret":"[^[]/);
  });
});
