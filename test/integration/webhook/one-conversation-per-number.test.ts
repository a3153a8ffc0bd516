import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import echo from '../../fixtures/bots/echo-bot.ts';
import {
  location,
  type ReplyLoop,
  replyNotification,
  startReplyLoop,
} from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';

describe('one conversation per number (default country FR)', () => {
  let raw = '';
  let loop: ReplyLoop;
  beforeAll(async () => {
    const capture = new Writable({
      write(chunk, _encoding, done) {
        raw += chunk.toString();
        done();
      },
    });
    loop = await startReplyLoop({
      registry: createBotRegistry([{ bot: echo, file: 'echo.ts' }]),
      defaultCountry: 'FR',
      logStream: capture,
    });
  });
  afterAll(() => loop.close());

  it('brings replies from 0033…, +33 6 … and 06… to the same conversation', async () => {
    const phone = '33612345678';
    await loop.start(phone, 'echo');
    await loop.waitForBodies(phone, 1);
    const started = await loop.store.getConversation({ location, phone });
    const forms = ['0033612345678', '+33 6 12 34 56 78', '0612345678'];
    for (const [index, from] of forms.entries()) {
      expect(await loop.notify(replyNotification(`forms-${index}`, from, `reply ${index}`))).toBe(
        200,
      );
      await loop.waitForBodies(phone, index + 2);
    }
    expect(await loop.bodiesTo(phone)).toEqual([
      'Echo bot here. Say anything.',
      '#1: reply 0',
      '#2: reply 1',
      '#3: reply 2',
    ]);
    const conversation = await loop.store.getConversation({ location, phone });
    expect(started).not.toBeNull();
    expect(conversation?.runId).toBe(started!.runId);
    expect(conversation?.status).toBe('active');
    const snapshot = conversation!.snapshot as { context: { seen: string[] } };
    expect(snapshot.context.seen).toEqual(['reply 0', 'reply 1', 'reply 2']);
    // The store keys conversations by digits: the digit-only forms are the ones that could have split.
    for (const form of ['0033612345678', '0612345678']) {
      expect(await loop.store.getConversation({ location, phone: form })).toBeNull();
      expect(await loop.store.pendingEvents({ location, phone: form })).toEqual([]);
    }
  });

  it('keeps a from that is no phone number as a dead letter, masked, and ingests the rest', async () => {
    const other = '33612345670';
    const envelope = replyNotification('bad-from-1', '06 12 3', 'ECHO lost');
    envelope.data.push({ ...envelope.data[0]!, from: '06 12 34 56 70', body: 'ECHO kept' });
    const res = await fetch(loop.webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(envelope),
    });
    expect(await res.json()).toMatchObject({ accepted: 1, rejected: 1 });
    const letter = (await loop.store.listDeadLetters(10)).find((l) =>
      l.body.includes('bad-from-1'),
    );
    expect(letter?.reason).toBe("item 0: reply: from '•••••' is not a phone number");
    const [greeting] = await loop.waitForBodies(other, 1);
    expect(greeting).toBe('Echo bot here. Say anything.');
    expect(await loop.store.getConversation({ location, phone: other })).toMatchObject({
      botId: 'echo',
    });
    for (const phone of ['06123', '3306123', '336123']) {
      expect(await loop.store.getConversation({ location, phone })).toBeNull();
      expect(await loop.store.pendingEvents({ location, phone })).toEqual([]);
    }
  });

  it('refuses a notification whose only reply has an unreadable from, with the number masked in the log', async () => {
    expect(await loop.notify(replyNotification('bad-from-2', '+33 6 12 34', 'STOP'))).toBe(400);
    await waitFor(() => raw.includes('notification refused'));
    expect(raw).toContain("from '336•234' is not a phone number");
    expect(raw).not.toContain('3361234');
    const [letter] = await loop.store.listDeadLetters(1);
    expect(letter?.reason).toBe("item 0: reply: from '336•234' is not a phone number");
    expect(await loop.store.getConversation({ location, phone: '3361234' })).toBeNull();
  });
});
