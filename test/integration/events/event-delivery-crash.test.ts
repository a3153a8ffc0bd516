import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { newEventSecret } from '../../../src/events/event-secret.ts';
import echo from '../../fixtures/bots/echo-bot.ts';
import { signedEvent } from '../../support/event-receiver.ts';
import { type ReplyLoop, startReplyLoop } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';
import {
  spawnWorkerProcess,
  stopWorkerProcess,
  type WorkerProcess,
  workerEnv,
} from '../../support/worker-process.ts';

const secret = newEventSecret();
const conversations = 20;

describe('outbound events through a worker SIGKILLed mid-delivery, on redis', () => {
  let loop: ReplyLoop;
  let worker: WorkerProcess | undefined;
  const output: string[] = [];
  /** Ids answered 2xx, in order (the receiver dedupes by them). */
  const accepted: string[] = [];
  let requests = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const event = signedEvent(secret, req, body, res);
      if (!event) return;
      const n = requests++;
      // Fails 5 times, then answers slowly: the kill lands while deliveries are in flight.
      if (n < 5) res.writeHead(500).end();
      else
        setTimeout(() => {
          // A killed worker never learns of this answer: it does not count as delivered.
          if (req.socket.destroyed) return;
          accepted.push(event.id);
          res.writeHead(200).end();
        }, 300);
    });
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    loop = await startReplyLoop({
      registry: createBotRegistry([{ bot: echo, file: 'echo-bot.ts' }]),
      roles: { web: true, worker: false, sender: false },
    });
  });
  afterAll(async () => {
    if (worker) await stopWorkerProcess(worker);
    await loop?.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('delivers each conversation.started at least once, and exactly once by id', async () => {
    onTestFailed(() => console.error(output.join('\n')));
    const env = {
      ...workerEnv(loop),
      REPLYFLOW_LEASE: '3s',
      REPLYFLOW_EVENTS_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
      REPLYFLOW_EVENTS_SECRET: secret,
      REPLYFLOW_EVENTS_ALLOW_PRIVATE: '1',
    };
    worker = spawnWorkerProcess(env, output);
    const phones = Array.from(
      { length: conversations },
      (_, i) => `3361239${String(i).padStart(4, '0')}`,
    );
    for (const phone of phones) await loop.start(phone, 'echo');
    // Killed once deliveries are under way, and some still in flight.
    await waitFor(() => accepted.length >= 3 || undefined, { timeout: 20_000 });
    await worker.kill('SIGKILL');
    worker = spawnWorkerProcess(env, output);
    await waitFor(() => new Set(accepted).size >= conversations || undefined, {
      timeout: 45_000,
      interval: 100,
    });
    const byId = new Map<string, number>();
    for (const id of accepted) byId.set(id, (byId.get(id) ?? 0) + 1);
    console.log(
      `event delivery across a SIGKILL: ${requests} requests, ${accepted.length} accepted, ` +
        `${byId.size} distinct ids, ${accepted.length - byId.size} repeated (same id)`,
    );
    // Deduped by id, each conversation's start is counted exactly once.
    expect(byId.size).toBe(conversations);
    expect([...byId.keys()].every((id) => /^evt_.+_0$/.test(id))).toBe(true);
    expect(await loop.store.listEvents({ failed: true, limit: 10 })).toEqual([]);
  }, 90_000);
});
