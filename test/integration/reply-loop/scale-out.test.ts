import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it, onTestFailed } from 'vitest';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import echo from '../../fixtures/bots/echo-bot.ts';
import { expectKeysOnEveryMaster } from '../../support/cluster-keys.ts';
import {
  echoConversations,
  postTurn,
  sentByPhone,
  waitUntilSettled,
} from '../../support/echo-load.ts';
import { location, type StoreKind, startReplyLoop } from '../../support/reply-loop.ts';
import {
  spawnWorkerProcess,
  stopWorkerProcess,
  type WorkerProcess,
  workerEnv,
} from '../../support/worker-process.ts';

const conversationCount = 1_000;
const followUps = 2;
const conversations = echoConversations(conversationCount, followUps, 33_613_000_000);

/** What a run leaves behind for one conversation. */
interface Outcome {
  record: { botId: string; status: string; value: unknown; context: unknown } | null;
  applied: string[];
  bodies: string[];
}

interface Run {
  outcomes: Map<string, Outcome>;
  /** Steps each worker process ran, counted from its `step` debug lines (a step that failed to commit counts too). */
  steps: number[];
  /** From the workers' spawn to the last reply posted, and to the last answer sent. */
  postedMs: number;
  settledMs: number;
}

/**
 * One run of the whole load: the webhook in this process, `processes` × `replyflow worker` in
 * child processes on one Redis. No `sms.status` notification is registered, so the final state
 * depends only on the replies, and two runs can be compared field by field.
 */
async function runWith(store: StoreKind, processes: number, output: string[]): Promise<Run> {
  const loop = await startReplyLoop({
    store,
    registry: createBotRegistry([{ bot: echo, file: 'echo-bot.ts' }]),
    roles: { web: true, worker: false, sender: false },
    webhook: false,
  });
  const env = { ...workerEnv(loop), LOG_LEVEL: 'debug' };
  let workers: WorkerProcess[] = [];
  try {
    const startedAt = Date.now();
    workers = Array.from({ length: processes }, () => spawnWorkerProcess(env, output));
    for (let turn = 0; turn <= followUps; turn++) {
      await postTurn(loop.webhookUrl, conversations, turn, 'scale', 32);
    }
    const postedMs = Date.now() - startedAt;
    const left = await waitUntilSettled(loop.store, loop.emulator.url, conversations, 90_000);
    expect(left, `with ${processes} worker process(es)`).toEqual([]);
    const settledMs = Date.now() - startedAt;
    await Promise.all(workers.map((worker) => stopWorkerProcess(worker)));
    if (store === 'cluster') await expectKeysOnEveryMaster(loop);

    const sent = await sentByPhone(loop.emulator.url);
    const outcomes = new Map<string, Outcome>();
    for (const { phone } of conversations) {
      const key = { location, phone };
      const record = await loop.store.getConversation(key);
      const snapshot = record?.snapshot as { value?: unknown; context?: unknown } | undefined;
      outcomes.set(phone, {
        record: record && {
          botId: record.botId,
          status: record.status,
          value: snapshot?.value,
          context: snapshot?.context,
        },
        applied: await loop.store.listApplied(key),
        bodies: (sent.get(phone) ?? []).map((sms) => sms.body),
      });
    }
    return { outcomes, steps: workers.map((worker) => worker.steps), postedMs, settledMs };
  } finally {
    await Promise.all(workers.map((worker) => stopWorkerProcess(worker)));
    await loop.close();
  }
}

describe.each(['redis', 'cluster'] as const)('several worker processes on one %s', (store) => {
  it('reach the same final state as one process: same contexts, same answers, none twice, none lost', async () => {
    const output: string[] = [];
    onTestFailed(() => console.error(output.join('\n')));

    const one = await runWith(store, 1, output);
    const three = await runWith(store, 3, output);
    console.log(
      `scale-out test on ${store}: ${conversationCount} conversations × ${followUps + 1} replies; ` +
        `1 process: all posted in ${one.postedMs} ms, settled in ${one.settledMs} ms; ` +
        `3 processes: posted in ${three.postedMs} ms, settled in ${three.settledMs} ms ` +
        `(steps per process: ${three.steps.join(', ')})`,
    );

    const problems: string[] = [];
    for (const { phone, replies, answers } of conversations) {
      const before = problems.length;
      const a = one.outcomes.get(phone)!;
      const b = three.outcomes.get(phone)!;
      const expected = {
        botId: 'echo',
        status: 'active',
        value: 'listening',
        context: { seen: replies, statuses: [] },
      };
      for (const [name, run] of [
        ['1 process', a],
        ['3 processes', b],
      ] as const) {
        if (!isDeepStrictEqual(run.record, expected)) {
          problems.push(`${phone} with ${name}: record ${JSON.stringify(run.record)}`);
        }
        if (!isDeepStrictEqual(run.bodies, answers)) {
          problems.push(`${phone} with ${name}: the handset got ${JSON.stringify(run.bodies)}`);
        }
        if (new Set(run.applied).size !== run.applied.length) {
          problems.push(`${phone} with ${name}: an event applied twice ${run.applied}`);
        }
      }
      if (problems.length === before && !isDeepStrictEqual(a, b)) {
        problems.push(
          `${phone}: 1 process ${JSON.stringify(a)} ≠ 3 processes ${JSON.stringify(b)}`,
        );
      }
    }
    expect({ problems: problems.length, first: problems.slice(0, 30) }).toEqual({
      problems: 0,
      first: [],
    });

    // Each process took a real share of the work, and no event was worked on twice (a claim
    // hides its conversation from every other lane and process until released).
    const totalSteps = conversationCount * (followUps + 1);
    expect(one.steps).toEqual([totalSteps]);
    expect(three.steps.reduce((a, b) => a + b, 0)).toBe(totalSteps);
    for (const steps of three.steps) expect(steps).toBeGreaterThan(totalSteps / 10);
  }, 240_000);
});
