import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import type { StoredSms } from '../../../src/emulator/index.ts';
import echo from '../../fixtures/bots/echo-bot.ts';
import {
  echoConversations,
  postTurn,
  processedCount,
  replyEnvelope,
  sentByPhone,
} from '../../support/echo-load.ts';
import { freePort } from '../../support/free-port.ts';
import { type ReplyLoop, startReplyLoop, webhookSecret } from '../../support/reply-loop.ts';
import { startSteadyLoad } from '../../support/steady-load.ts';
import { type ThrowawayRedis, throwawayRedis } from '../../support/throwaway-redis.ts';
import { waitFor } from '../../support/wait-for.ts';
import {
  spawnReplyflowProcess,
  stopWorkerProcess,
  type WorkerProcess,
  workerEnv,
} from '../../support/worker-process.ts';

const registry = createBotRegistry([{ bot: echo, file: 'echo-bot.ts' }]);
const stopTimeoutMs = 5_000;
/** Notifications per second of the steady load (the 200; STOP_TEST_RATE on a slow machine). */
const rate = Number(process.env.STOP_TEST_RATE) || 200;
/** Conversations the load replies in, round robin. */
const conversations = 200;
const phoneOf = (index: number) => String(33_612_000_000 + index);

/** `replyflow start` in a child process on the loop's Redis and emulator, registering its webhook. */
async function startProcess(
  loop: ReplyLoop,
  port: number,
  output: string[],
  env: Record<string, string> = {},
  { register = true } = {},
) {
  const child = spawnReplyflowProcess(
    'start',
    {
      ...workerEnv(loop),
      PORT: String(port),
      ...(register && { REPLYFLOW_PUBLIC_URL: `http://127.0.0.1:${port}` }),
      REPLYFLOW_STOP_TIMEOUT: `${stopTimeoutMs / 1_000}s`,
      ...env,
    },
    output,
  );
  await waitFor(
    async () =>
      (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200,
    { timeout: 30_000, interval: 50, message: `replyflow start ready (${output.join('\n')})` },
  );
  return child;
}

/** SIGTERM; resolves to the exit and how long it took. */
async function terminate(child: WorkerProcess) {
  const at = Date.now();
  await child.kill('SIGTERM');
  return { ...(await child.exited), ms: Date.now() - at };
}

describe('SIGTERM under a steady 200 notifications/s, then a restart', () => {
  let loop: ReplyLoop;
  const output: string[] = [];
  const children: WorkerProcess[] = [];
  beforeAll(async () => {
    // Here: the emulator and the store's Redis only; replyflow runs in the child processes.
    loop = await startReplyLoop({
      registry,
      roles: { web: false, worker: false, sender: false, scheduler: false },
      webhook: false,
    });
  });
  afterAll(async () => {
    await Promise.all(children.map((child) => stopWorkerProcess(child)));
    await loop?.close();
  });

  it('answers every acknowledged notification exactly once, within 5 s of the restart, and exits 0 within the timeout', async () => {
    onTestFailed(() => console.error(output.join('\n')));
    const port = await freePort();
    const webhook = `http://127.0.0.1:${port}/webhooks/paris/${webhookSecret}`;
    // No REPLYFLOW_PUBLIC_URL: statuses are not posted back, so each notification is one
    // turn and one answer, and the load is what the test says.
    const start = () => startProcess(loop, port, output, {}, { register: false });
    children.push(await start());
    // The conversations first: each notification of the load is then one reply and one echo.
    const phones = Array.from({ length: conversations }, (_, i) => phoneOf(i));
    await postTurn(webhook, echoConversations(conversations, 0, 33_612_000_000), 0, 'open');
    await waitFor(async () => (await processedCount(loop.emulator.url)) >= 2 * conversations, {
      timeout: 30_000,
      message: 'every conversation open',
    });
    const bodyOf = (i: number) => `load ${i} to ${phones[i % conversations]}`;
    const load = startSteadyLoad(webhook, rate, (i) =>
      JSON.stringify(replyEnvelope(`load-${i}`, phones[i % conversations]!, bodyOf(i))),
    );
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const stopped = await terminate(children[0]!);
    children.push(await start());
    const restartedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const posted = await load.stop();
    const acknowledged = posted.filter((p) => p.status === 200);
    const refused = posted.filter((p) => p.status === 503).length;

    // Each acknowledged reply is echoed once; nothing is echoed twice.
    const expected = new Set(acknowledged.map((p) => bodyOf(p.index)));
    const echoes = async () => {
      const found = new Map<string, StoredSms[]>();
      for (const list of (await sentByPhone(loop.emulator.url)).values()) {
        for (const sms of list) {
          const body = sms.body.replace(/^#\d+: /, '');
          if (body.startsWith('load ')) found.set(body, [...(found.get(body) ?? []), sms]);
        }
      }
      return found;
    };
    let found = new Map<string, StoredSms[]>();
    await waitFor(
      async () => {
        found = await echoes();
        return [...expected].every((body) => found.has(body));
      },
      { timeout: 30_000, interval: 250 },
    ).catch(() => {});
    const missing = [...expected].filter((body) => !found.has(body));
    const twice = [...found].filter(([, list]) => list.length > 1).map(([body]) => body);
    const answeredAt = (index: number) =>
      Math.max(...(found.get(bodyOf(index)) ?? []).map((sms) => Date.parse(sms.createdAt)));
    // Acknowledged before the restart: their claims were released at the stop, so none waits
    // for a lease (30 s) or an in-doubt grace (30 s).
    const before = acknowledged.filter((p) => (p.answeredAt ?? 0) < restartedAt);
    const latestBefore = Math.max(...before.map((p) => answeredAt(p.index)));
    // Acknowledged after it: answered as promptly, from their own acknowledgement.
    const lagAfter = Math.max(
      0,
      ...acknowledged
        .filter((p) => (p.answeredAt ?? 0) >= restartedAt)
        .map((p) => answeredAt(p.index) - (p.answeredAt ?? 0)),
    );
    const latest = Math.max(...acknowledged.map((p) => answeredAt(p.index)));
    console.log(
      `graceful stop at ${rate}/s: ${posted.length} notifications posted, ${acknowledged.length} ` +
        `acknowledged (${before.length} before the stop), ${refused} refused with 503; stopped in ` +
        `${stopped.ms} ms (exit ${stopped.code}); answers to those acknowledged before the stop: ` +
        `last ${latestBefore - restartedAt} ms after the restart; after it: at most ${lagAfter} ms ` +
        `after their acknowledgement; last answer of all ${latest - restartedAt} ms after the restart; ` +
        `${missing.length} missing, ${twice.length} twice`,
    );
    expect({ missing: missing.slice(0, 10), twice: twice.slice(0, 10) }).toEqual({
      missing: [],
      twice: [],
    });
    expect(stopped).toMatchObject({ code: 0, signal: null });
    expect(stopped.ms).toBeLessThan(stopTimeoutMs);
    expect(before.length).toBeGreaterThan(0);
    expect(latestBefore - restartedAt).toBeLessThan(5_000);
    expect(lagAfter).toBeLessThan(5_000);
  }, 120_000);
});

describe('SIGTERM with Redis hung', () => {
  let redis: ThrowawayRedis;
  let loop: ReplyLoop;
  const output: string[] = [];
  const children: WorkerProcess[] = [];
  beforeAll(async () => {
    redis = await throwawayRedis();
    loop = await startReplyLoop({
      registry,
      redisUrl: redis.url,
      roles: { web: false, worker: false, sender: false, scheduler: false },
      webhook: false,
    });
  });
  afterAll(async () => {
    redis?.thaw();
    await Promise.all(children.map((child) => stopWorkerProcess(child)));
    await loop?.close();
    await redis?.stop();
  });

  it('exits 0 within REPLYFLOW_STOP_TIMEOUT while Redis answers nothing (SIGSTOP)', async () => {
    onTestFailed(() => console.error(output.join('\n')));
    const port = await freePort();
    const child = await startProcess(loop, port, output, { LOG_LEVEL: 'info' });
    children.push(child);
    const webhook = `http://127.0.0.1:${port}/webhooks/paris/${webhookSecret}`;
    const load = startSteadyLoad(webhook, 100, (i) =>
      JSON.stringify(replyEnvelope(`hung-${i}`, phoneOf(i), `ECHO from ${phoneOf(i)}`)),
    );
    await waitFor(() => load.posted.filter((p) => p.status === 200).length >= 50, {
      timeout: 15_000,
    });
    redis.freeze();
    // Let the process's calls hang in the frozen Redis.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const stopped = await terminate(child);
    console.log(`SIGTERM with Redis frozen: exit ${stopped.code} after ${stopped.ms} ms`);
    await load.stop();
    expect(stopped).toMatchObject({ code: 0, signal: null });
    // With Redis hung the stop may run to its deadline: the process keeps a reserve of the
    // timeout for its exit (exitReserveMs), so it is gone within the timeout all the same.
    expect(stopped.ms).toBeLessThan(stopTimeoutMs);
    expect(output.join('\n')).not.toMatch(/Unhandled|uncaught/i);
  }, 60_000);
});
