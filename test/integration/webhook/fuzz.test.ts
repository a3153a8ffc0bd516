import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import echo from '../../fixtures/bots/echo-bot.ts';
import { hostileBodies } from '../../support/hostile-bodies.ts';
import { expectNoFullPhoneNumber, LogCapture } from '../../support/log-capture.ts';
import { type ReplyLoop, replyNotification, startReplyLoop } from '../../support/reply-loop.ts';

/** The full numbers the hostile bodies and the check after them carry (`hostile-bodies.ts`). */
const phones = ['33612345678', '٣٣٦١٢٣٤٥٦٧٨', '33612345999'];

describe('the webhook under hostile input', () => {
  let loop: ReplyLoop;
  const logs = new LogCapture();
  beforeAll(async () => {
    loop = await startReplyLoop({
      registry: createBotRegistry([{ bot: echo, file: 'echo.ts' }]),
      logStream: logs.stream,
    });
  });
  afterAll(() => loop.close());

  it('answers 5,000 malformed or hostile bodies without a 5xx, and keeps serving', {
    timeout: 120_000,
  }, async () => {
    const url = new URL(loop.webhookUrl);
    const pool = new Pool(url.origin, { connections: 16 });
    const statuses = new Map<string, Set<number>>();
    const serverErrors: string[] = [];
    const bodies = [...hostileBodies(5_000, 20261121)];
    let next = 0;
    const lane = async () => {
      while (next < bodies.length) {
        const index = next++;
        const sample = bodies[index]!;
        const res = await pool.request({
          method: 'POST',
          path: url.pathname,
          headers: { 'content-type': sample.contentType ?? 'application/json' },
          body: sample.body,
        });
        await res.body.dump();
        if (res.statusCode >= 500) serverErrors.push(`#${index} ${sample.kind}: ${res.statusCode}`);
        if (!statuses.has(sample.kind)) statuses.set(sample.kind, new Set());
        statuses.get(sample.kind)!.add(res.statusCode);
      }
    };
    await Promise.all(Array.from({ length: 16 }, lane));
    await pool.close();

    expect(serverErrors).toEqual([]);
    expect(statuses.get('bad-json')).toEqual(new Set([400]));
    expect(statuses.get('over-limit')).toEqual(new Set([413]));
    expect(statuses.size).toBeGreaterThanOrEqual(15);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();

    // Refused bodies are kept for inspection, in a capped list.
    const letters = await loop.store.listDeadLetters(10);
    expect(letters.length).toBe(10);
    expect(letters[0]?.reason).toBeTruthy();

    // And the process still serves real traffic.
    const phone = '33612345999';
    expect(await loop.notify(replyNotification('after-fuzz', phone, 'ECHO still here'))).toBe(200);
    expect(await loop.waitForBodies(phone, 2)).toEqual([
      'Echo bot here. Say anything.',
      '#1: ECHO still here',
    ]);
  });

  it('logged no full phone number, in refusal reasons (parser excerpts, field errors) included', () => {
    expect(
      logs.lines.filter((line) => line.includes('notification refused')).length,
    ).toBeGreaterThan(1_000);
    expectNoFullPhoneNumber(logs, phones);
  });
});
