import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import echo from '../../fixtures/bots/echo-bot.ts';
import { freePort } from '../../support/free-port.ts';
import { location, type ReplyLoop, startReplyLoop } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';
import {
  spawnWorkerProcess,
  stopWorkerProcess,
  type WorkerProcess,
  workerEnv,
} from '../../support/worker-process.ts';

const token = 'admin-1b3d5f7a9c2e4f6a8b0d1c3e5f7a9b2d';
const recipients = 600;
const rate = 60;
const greeting = 'Echo bot here. Say anything.';
const phones = Array.from({ length: recipients }, (_, i) => `3361600${String(i).padStart(4, '0')}`);

interface Sms {
  to: string;
  body: string;
}

describe('one campaign fired by two worker processes at once, sharing one Redis', () => {
  let loop: ReplyLoop;
  const workers: WorkerProcess[] = [];
  const output: string[] = [];
  const healthPorts: number[] = [];

  beforeAll(async () => {
    // This process serves the admin API and the webhook (the emulator's statuses); the
    // campaign runners, the workers and the senders are in the children.
    loop = await startReplyLoop({
      registry: createBotRegistry([{ bot: echo, file: 'echo-bot.ts' }]),
      adminToken: token,
      roles: { web: true, worker: false, sender: false, scheduler: false },
      // A send that times out on a busy machine (or whose lane's lease ran out) is in doubt
      // until its status comes: the emulator waits 4 s for the webhook's answer and retries for
      // minutes as the service does (scaled by its time scale of 0.01, its 4 s deadline and
      // short retries would give a status up within a second, and a message whose status never
      // comes is sent again after the grace).
      emulator: { webhookRetry: { timeoutMs: 400_000, baseMs: 100_000, maxRetries: 10 } },
    });
    // Two `replyflow worker` processes: each runs a campaign runner, workers and a sender. A
    // short lease: a chunk's run at the shared rate outlasts it, so the runners also take over
    // chunks another one is still firing (and a send in doubt after a takeover finds its
    // status: the emulator's status webhook is on).
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      healthPorts.push(port);
      workers.push(
        spawnWorkerProcess(
          {
            ...workerEnv(loop),
            REPLYFLOW_LEASE: '3s',
            REPLYFLOW_HEALTH_PORT: String(port),
            LOG_LEVEL: 'debug',
          },
          output,
        ),
      );
    }
    for (const port of healthPorts) {
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200, {
        timeout: 30_000,
        interval: 100,
        message: `the worker on :${port} ready`,
      });
    }
  }, 60_000);
  afterAll(async () => {
    for (const worker of workers) await stopWorkerProcess(worker);
    await loop?.close();
  });

  it('starts each recipient exactly once (one SMS per phone at the emulator), and each process took part', async () => {
    onTestFailed(() => console.error(output.join('\n')));
    const at = new Date(Date.now() + 1_000).toISOString();
    const created = await fetch(
      `${loop.app.url}/admin/campaigns?name=many&bot=echo&at=${encodeURIComponent(at)}&rate=${rate}/s`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv' },
        body: ['phone', ...phones.map((phone) => `+${phone}`)].join('\n'),
      },
    );
    expect(created.status, await created.clone().text()).toBe(201);
    const meta = (await loop.store.getCampaign({ location, name: 'many' }))!;
    expect(meta.ratePerSecond).toBe(rate);

    const sent = async () =>
      ((await (await fetch(`${loop.emulator.url}/_emulator/messages`)).json()) as Sms[]).filter(
        (sms) => sms.body === greeting,
      );
    // Every recipient fired (none scheduled any more), then every mailbox and outbox empty: a
    // second start or a second send of any would show now.
    await waitFor(
      async () => {
        const counted = await loop.store.campaignCounts(meta);
        return (counted.scheduled ?? 0) + (counted.held ?? 0) === 0;
      },
      { timeout: 90_000, interval: 250, message: 'every recipient fired' },
    );
    await waitFor(async () => (await sent()).length >= recipients, {
      timeout: 90_000,
      interval: 500,
      message: 'an SMS to every recipient',
    });
    // Read sparingly: this process runs the emulator the children send to.
    await waitFor(
      async () => {
        const pending = await Promise.all(
          phones.map(async (phone) => {
            const [events, outbound] = await Promise.all([
              loop.store.pendingEvents({ location, phone }),
              loop.store.pendingOutbound({ location, phone }),
            ]);
            return events.length + outbound.length;
          }),
        );
        return pending.every((n) => n === 0);
      },
      { timeout: 90_000, interval: 1_000, message: 'every mailbox and outbox drained' },
    );
    const perPhone = new Map<string, number>();
    for (const sms of await sent()) perPhone.set(sms.to, (perPhone.get(sms.to) ?? 0) + 1);
    const twice = phones.filter((phone) => (perPhone.get(phone) ?? 0) > 1);
    const never = phones.filter((phone) => !perPhone.has(phone));
    expect({ twice, never }).toEqual({ twice: [], never: [] });
    expect(await loop.store.campaignCounts(meta)).toEqual({ started: recipients });
    // Each start's event was applied once in its phone's conversation.
    for (const phone of phones.filter((_, i) => i % 20 === 0)) {
      const applied = await loop.store.listApplied({ location, phone });
      expect(applied.filter((id) => id.startsWith('campaign:'))).toHaveLength(1);
    }
    // The children did their share of the conversations' steps (their debug `step` lines).
    for (const worker of workers) expect(worker.steps).toBeGreaterThan(0);
  }, 240_000);
});
