import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { chunksFor } from '../../../src/store/campaign-id.ts';
import type { CampaignMeta, RecipientRow } from '../../../src/store/campaign-records.ts';
import echo from '../../fixtures/bots/echo-bot.ts';
import { location, type ReplyLoop, startReplyLoop } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';
import {
  spawnWorkerProcess,
  stopWorkerProcess,
  type WorkerProcess,
  workerEnv,
} from '../../support/worker-process.ts';

const recipients = 300;
const kills = 3;

interface Sms {
  to: string;
  body: string;
  createdAt: string;
}

describe('a campaign firing while its worker process is killed with SIGKILL, three times', () => {
  let loop: ReplyLoop;
  let worker: WorkerProcess | undefined;
  const output: string[] = [];

  beforeAll(async () => {
    // The webhook runs here, never killed; the runner, the workers and the sender in the child.
    loop = await startReplyLoop({
      registry: createBotRegistry([{ bot: echo, file: 'echo-bot.ts' }]),
      roles: { web: true, worker: false, sender: false, scheduler: false },
      emulator: { webhookRetry: { timeoutMs: 400_000 } },
    });
  });
  afterAll(async () => {
    if (worker) await stopWorkerProcess(worker);
    await loop?.close();
  });

  it('starts every recipient once: none twice, none lost (one SMS each at the emulator)', async () => {
    onTestFailed(() => console.error(output.join('\n')));
    const now = Date.now();
    const meta: CampaignMeta = {
      v: 1,
      location,
      name: 'crash',
      bot: 'echo',
      status: 'active',
      schedule: { at: new Date(now).toISOString() },
      ratePerSecond: 40,
      timeZone: 'UTC',
      late: { kind: 'sendIfWithin', ms: 3_600_000 },
      chunks: chunksFor(recipients, loop.store.partitions),
      generation: 1,
      createdAt: now,
      updatedAt: now,
    };
    await loop.store.saveCampaign(meta);
    const phones = Array.from(
      { length: recipients },
      (_, i) => `3361500${String(i).padStart(4, '0')}`,
    );
    const rows: RecipientRow[] = phones.map((phone, i) => ({
      row: phone,
      record: { state: 'scheduled', due: now, line: i + 2, input: {} },
    }));
    await loop.store.upsertRecipients(meta, 1, rows);

    const env = { ...workerEnv(loop), REPLYFLOW_LEASE: '3s', REPLYFLOW_IN_DOUBT_GRACE: '3s' };
    const sent = async () =>
      ((await (await fetch(`${loop.emulator.url}/_emulator/messages`)).json()) as Sms[]).filter(
        (sms) => phones.includes(sms.to),
      );
    worker = spawnWorkerProcess(env, output);
    for (let kill = 1; kill <= kills; kill++) {
      // Kill it while it fires: once it has sent a few more.
      const before = (await sent()).length;
      await waitFor(async () => (await sent()).length >= before + 20, {
        timeout: 30_000,
        interval: 25,
        message: `worker ${kill} fires`,
      });
      await worker.kill('SIGKILL');
      worker = spawnWorkerProcess(env, output);
    }
    const counts = await waitFor(
      async () => {
        const counted = await loop.store.campaignCounts(meta);
        const sms = await sent();
        return counted.started === recipients && sms.length >= recipients && counted;
      },
      { timeout: 90_000, interval: 100, message: 'every recipient started and sent to' },
    );
    expect(counts).toEqual({ started: recipients });
    // A moment more for anything sent twice to show itself, then count per phone.
    await waitFor(
      async () => {
        const pending = await Promise.all(
          phones.map((phone) => loop.store.pendingOutbound({ location, phone })),
        );
        return pending.every((list) => list.length === 0);
      },
      { timeout: 30_000, interval: 100, message: 'every outbox drained' },
    );
    const perPhone = new Map<string, number>();
    for (const sms of await sent()) perPhone.set(sms.to, (perPhone.get(sms.to) ?? 0) + 1);
    const twice = phones.filter((phone) => (perPhone.get(phone) ?? 0) > 1);
    const never = phones.filter((phone) => !perPhone.has(phone));
    expect({ twice, never }).toEqual({ twice: [], never: [] });
    for (const phone of phones.slice(0, 20)) {
      const applied = await loop.store.listApplied({ location, phone });
      expect(applied.filter((id) => id.startsWith('campaign:'))).toHaveLength(1);
    }
  }, 180_000);
});
