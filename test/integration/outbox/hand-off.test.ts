import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppConfig } from '../../../src/app/config.ts';
import { startReplyflow } from '../../../src/app/start-replyflow.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { startConversation } from '../../../src/conversation/start-conversation.ts';
import { createMemoryStore } from '../../../src/store/memory/create-memory-store.ts';
import type { QueueName, Store } from '../../../src/store/store.ts';
import echo from '../../fixtures/bots/echo-bot.ts';
import { replyEnvelope } from '../../support/echo-load.ts';
import { waitFor } from '../../support/wait-for.ts';
import { type ProviderEmulator, startProviderEmulator } from '../provider/provider-emulator.ts';

const config = (): AppConfig => ({
  locations: [
    {
      name: 'paris',
      providerUrl: 'unused',
      apiKeyId: 'k',
      apiKeySecret: 's',
      webhookSecret: 'unused-secret',
      rateLimitPerSecond: 1_000_000,
    },
  ],
  botsDir: 'unused',
  publicUrl: undefined,
  redisUrl: undefined,
  redisPrefix: 'unused',
  sendDeadlineMs: 3_600_000,
  sendConcurrency: 1,
  workerConcurrency: 4,
  leaseMs: 30_000,
  inDoubtGraceMs: 30_000,
  port: 0,
  logLevel: 'silent',
});

/** The store, counting the claims that found something, per queue. */
function countingClaims(store: Store) {
  const claims: Record<QueueName, number> = { inbox: 0, outbox: 0 };
  const counted: Store = Object.create(store);
  counted.claim = async (queue, ...rest) => {
    const claim = await store.claim(queue, ...rest);
    if (claim) claims[queue]++;
    return claim;
  };
  counted.claimMany = async (queue, ...rest) => {
    const many = await store.claimMany(queue, ...rest);
    claims[queue] += many.length;
    return many;
  };
  return { claims, store: counted };
}

let service: ProviderEmulator | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

/**
 * The emulator, a memory store counting its claims, and the options every replyflow instance
 * of a case shares (the same store, bots and clients, as processes on one Redis would).
 */
async function sharedStore() {
  service = await startProviderEmulator({ rateLimitPerSecond: Number.POSITIVE_INFINITY });
  const { claims, store } = countingClaims(createMemoryStore({}));
  const common = {
    config: config(),
    logger: pino({ level: 'silent' }),
    store,
    registry: createBotRegistry([{ bot: echo, file: 'echo.ts' }]),
    clients: new Map([['paris', service.client({ limits: { perSecond: 1_000_000 } })]]),
  };
  return { service, claims, store, common };
}

describe('the outbox hand-off from worker to sender in one process', () => {
  it.each([
    ['worker and sender in one process', 0, { worker: true, sender: true }],
    ['a worker alone, its sender elsewhere', 12, { worker: true, sender: false }],
  ] as const)(
    '%s: every greeting is sent once; the sender claims %i outboxes itself',
    async (_, senderClaims, roles) => {
      const { service, claims, store, common } = await sharedStore();
      const app = await startReplyflow({
        ...common,
        roles: { web: false, scheduler: false, ...roles },
      });
      // The separate sender of the second case: its claims are the ones the hand-off saves.
      const sender = roles.sender
        ? undefined
        : await startReplyflow({
            ...common,
            roles: { web: false, worker: false, scheduler: false },
          });
      const phones = Array.from({ length: 12 }, (_, n) => `336${20_000_000 + n}`);
      try {
        // One at a time, so the sender always has room for the claim the commit hands it.
        for (const [n, phone] of phones.entries()) {
          await startConversation(store, {
            location: 'paris',
            phone,
            botId: 'echo',
            now: Date.now(),
          });
          await waitFor(async () => (await service!.requests('POST /v1/sms')).length === n + 1, {
            timeout: 10_000,
          });
        }
      } finally {
        await sender?.close();
        await app.close();
      }
      const sent = await service.control<{ to: string; body: string }[]>('GET', '/messages');
      expect(sent.map((m) => m.to).sort()).toEqual([...phones].sort());
      expect(new Set(sent.map((m) => m.body))).toEqual(new Set(['Echo bot here. Say anything.']));
      expect(claims.inbox).toBe(12);
      expect(claims.outbox).toBe(senderClaims);
    },
  );
});

describe('the inbox hand-off from web role to worker in one process', () => {
  it.each([
    ['web role and worker in one process', 0, true],
    ['a web role alone, its worker elsewhere', 12, false],
  ] as const)(
    '%s: every ECHO is answered once; the worker claims %i mailboxes itself',
    async (_, workerClaims, together) => {
      const { service, claims, common } = await sharedStore();
      const app = await startReplyflow({
        ...common,
        roles: { web: true, worker: together, sender: true, scheduler: false },
      });
      // The separate worker of the second case: its claims are the ones the hand-off saves.
      const worker = together
        ? undefined
        : await startReplyflow({
            ...common,
            roles: { web: false, worker: true, sender: false, scheduler: false },
          });
      const phones = Array.from({ length: 12 }, (_, n) => `336${30_000_000 + n}`);
      try {
        // One at a time, so the worker always has room for the claim the ingest hands it.
        for (const [n, phone] of phones.entries()) {
          const res = await fetch(`${app.url}/webhooks/paris/unused-secret`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(replyEnvelope(`n-${n}`, phone, 'ECHO')),
          });
          expect(res.status).toBe(200);
          // The greeting, then the echo of the ECHO that started it.
          await waitFor(
            async () => (await service!.requests('POST /v1/sms')).length === 2 * (n + 1),
            {
              timeout: 10_000,
            },
          );
        }
      } finally {
        await worker?.close();
        await app.close();
      }
      const sent = await service.control<{ to: string; body: string }[]>('GET', '/messages');
      expect(sent.map((m) => m.to).sort()).toEqual([...phones, ...phones].sort());
      expect(claims.inbox).toBe(workerClaims);
    },
  );
});
