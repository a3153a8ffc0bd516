import { afterEach, describe, expect, it } from 'vitest';
import { loadBots } from '../../../src/bot/load-bots.ts';
import { createWorker, type Worker } from '../../../src/conversation/create-worker.ts';
import { startConversation } from '../../../src/conversation/start-conversation.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { createManualClock } from '../../../src/scheduler/create-manual-clock.ts';
import { createMemoryStore } from '../../../src/store/memory/create-memory-store.ts';
import type { Store } from '../../../src/store/store.ts';
import { waitFor } from '../../support/wait-for.ts';

const location = 'paris';
const phone = '33612345678';
const key = { location, phone };
const clock = createManualClock(Date.parse('2026-12-01T09:00:00Z'));

/** Runs version 1 of the survey until the phone's conversation waits at q1. */
async function conversationOfV1(store: Store): Promise<string> {
  const v1 = await loadBots('test/fixtures/versions/v1');
  const worker = createWorker({
    store,
    registry: v1,
    clock,
    logger: createLogger({ level: 'silent' }),
  });
  worker.start();
  await startConversation(store, { location, phone, botId: 'kit-survey', now: clock.now() });
  const record = await waitFor(async () => {
    const found = await store.getConversation(key);
    return found?.seq === 1 && found;
  });
  await worker.stop();
  expect(record.snapshot).toMatchObject({ value: 'q1' });
  return record.botVersion;
}

/** The person answers; a worker serving `dir` takes the reply. */
async function replyUnder(store: Store, dir: string, lines: string[]): Promise<Worker> {
  const worker = createWorker({
    store,
    registry: await loadBots(dir),
    clock,
    logger: createLogger({
      level: 'info',
      destination: { write: (line: string) => lines.push(line) },
    }),
  });
  worker.start();
  await store.ingest(
    'n-reply',
    [
      {
        event: {
          v: 1,
          kind: 'reply',
          id: 'n-reply:0',
          location,
          phone,
          receivedAt: clock.now(),
          body: 'blue',
          originSmsId: 'sms-1',
          to: '38200',
        },
      },
    ],
    clock.now(),
  );
  await waitFor(async () => (await store.getConversation(key))?.seq === 2, {
    message: 'the reply applied',
  });
  return worker;
}

describe('a conversation stored by another version of its bot', () => {
  let worker: Worker | undefined;
  afterEach(() => worker?.stop());

  it('ends with version_changed and a log line when the bot has no migrate', async () => {
    const store = createMemoryStore();
    const v1Version = await conversationOfV1(store);
    const lines: string[] = [];
    worker = await replyUnder(store, 'test/fixtures/versions/v2-removed', lines);
    expect(await store.getConversation(key)).toMatchObject({
      status: 'done',
      endedReason: 'version_changed',
    });
    const ended = lines
      .map((line) => JSON.parse(line))
      .find((entry) => entry.code === 'version_changed');
    expect(ended).toMatchObject({
      level: 40,
      msg: 'conversation ended: it cannot resume',
      bot: 'kit-survey',
      conversation: expect.stringContaining('•'),
    });
    expect(ended.detail).toContain(`snapshot of version ${v1Version}`);
    expect(lines.join('\n')).not.toContain(phone);
  });

  it('goes through migrate when the bot has one, and carries on under the new version', async () => {
    const store = createMemoryStore();
    const v1Version = await conversationOfV1(store);
    worker = await replyUnder(store, 'test/fixtures/versions/v2-migrate', []);
    const record = await store.getConversation(key);
    // The migrate kept q1; the reply then took the new machine from q1 to its end.
    expect(record).toMatchObject({ status: 'done', endedReason: 'final' });
    expect(record?.botVersion).toMatch(/^2\+[0-9a-f]{12}$/);
    expect(record?.botVersion).not.toBe(v1Version);
    expect(await store.pendingOutbound(key)).toEqual([
      expect.objectContaining({ body: 'Question 1?' }),
      expect.objectContaining({ body: 'Thanks.' }),
    ]);
  });
});
