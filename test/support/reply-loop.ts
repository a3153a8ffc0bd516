import { Redis } from 'ioredis';
import { type DestinationStream, pino } from 'pino';
import type { AppConfig, LocationConfig } from '../../src/app/config.ts';
import {
  type RunningReplyflow,
  type StartOptions,
  startReplyflow,
} from '../../src/app/start-replyflow.ts';
import type { BotRegistry } from '../../src/bot/bot-registry.ts';
import { startConversation } from '../../src/conversation/start-conversation.ts';
import {
  type EmulatorOptions,
  type RunningEmulator,
  startEmulator,
} from '../../src/emulator/index.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { createMessagingClients } from '../../src/provider/create-messaging-clients.ts';
import type { ProviderTimeouts } from '../../src/provider/provider-transport.ts';
import { type Clock, systemClock } from '../../src/scheduler/clock.ts';
import { createMemoryStore } from '../../src/store/memory/create-memory-store.ts';
import { connectRedisCluster, createRedisStore } from '../../src/store/redis/create-redis-store.ts';
import { redisOptionsForStore } from '../../src/store/redis/redis-options-for-store.ts';
import type { RedisConnection } from '../../src/store/redis/redis-store-context.ts';
import type { Store } from '../../src/store/store.ts';
import { randomPrefix, testClusterNodes, testRedisUrl } from './redis.ts';
import { waitFor } from './wait-for.ts';

export const location = 'paris';
export const webhookSecret = 'test-secret-0123456789abcdef';

export interface ReplyLoop {
  emulator: RunningEmulator;
  app: RunningReplyflow;
  store: Store;
  /** replyflow's webhook URL for the location. */
  webhookUrl: string;
  /** Where the Redis store lives (undefined on the memory store), for worker processes to share it. */
  redis: RedisLocation | undefined;
  /** Starts a bot's conversation with a phone, as a campaign would. */
  start(phone: string, botId: string, input?: unknown): Promise<void>;
  /** The handset texts the short code (correlated with its last message from the short code). */
  reply(phone: string, body: string): Promise<void>;
  /** Bodies of the SMS the emulator accepted for a phone, oldest first. */
  bodiesTo(phone: string): Promise<string[]>;
  /**
   * Starts another replyflow process-alike on the same store (its own Redis connection), with
   * the roles given (no web server by default). Closed with the loop, or by the test.
   */
  startInstance(roles?: StartOptions['roles']): Promise<RunningReplyflow>;
  /** Posts a notification straight to replyflow's webhook; resolves to the HTTP status. */
  notify(envelope: unknown): Promise<number>;
  /** Waits until the emulator accepted `count` SMS for the phone, and returns their bodies. */
  waitForBodies(phone: string, count: number, timeout?: number): Promise<string[]>;
  /**
   * Waits until the emulator has nothing left to do on its own (`GET /_emulator/pending-work`):
   * every webhook delivery, its retries and every status change done. A test that moves a
   * manual clock past the applied log's window (24 h) waits for it first: a retry of a
   * notification whose first answer was late (the emulator's deadline is 40 ms at its time
   * scale) that came after the move would be a new event to replyflow.
   */
  emulatorIdle(): Promise<void>;
  close(): Promise<void>;
}

export type StoreKind = 'redis' | 'cluster' | 'memory';

/** One Redis (`url`) or a Redis Cluster (`clusterNodes`), and the store's key prefix. */
export interface RedisLocation {
  url?: string;
  clusterNodes?: string[];
  prefix: string;
}

/** A store connection to `location`, with the options the app uses. */
export function connectRedis(location: RedisLocation): RedisConnection {
  const redis = location.clusterNodes
    ? connectRedisCluster(location.clusterNodes)
    : new Redis(location.url!, redisOptionsForStore());
  // Connection errors surface as StoreUnavailableError on the calls; no need to print them.
  redis.on('error', () => {});
  return redis;
}

export interface ReplyLoopOptions {
  registry: BotRegistry;
  /** replyflow's rate limit for the location, in requests per second. Default 1000. */
  rateLimitPerSecond?: number;
  /** How long a message may be retried before send_failed. Default one hour. */
  sendDeadlineMs?: number;
  /** Sends in flight per instance. Default 4. */
  sendConcurrency?: number;
  /** How long a taken-over head waits for its status before it is sent. Default 30 s. */
  inDoubtGraceMs?: number;
  /** replyflow's clock (a manual one for timer tests); the system clock by default. */
  clock?: Clock;
  /** Overrides of the emulator's options (time scale, webhook retry…). */
  emulator?: Partial<EmulatorOptions>;
  /** Where replyflow's and the emulator's log lines go (level debug); silent when absent. */
  logStream?: DestinationStream;
  /** `cluster`: the test Redis Cluster (3 masters); `redis`, the default: one Redis. */
  store?: StoreKind;
  /** Redis URL for the redis store; the shared test Redis by default. */
  redisUrl?: string;
  roles?: StartOptions['roles'];
  /** The location's `defaultCountry` (for replies whose `from` is in national form). None by default. */
  defaultCountry?: string;
  /** The location's compliance section (keywords, texts, quiet hours, loop guard); defaults otherwise. */
  compliance?: LocationConfig['compliance'];
  /** The messaging client's time-outs (a hung service's test); the client's defaults otherwise. */
  providerTimeouts?: Partial<ProviderTimeouts>;
  /** Where replyflow reaches the service, given the emulator's base URL (a proxy in front of it). */
  providerUrl?: (emulatorBaseUrl: string) => string | Promise<string>;
  /** REPLYFLOW_ADMIN_TOKEN and REPLYFLOW_ADMIN_READ_TOKEN: the admin API and the dashboard (none by default). */
  adminToken?: string;
  adminReadToken?: string;
  /** Register replyflow's webhook at the emulator (default true). When false, no `sms.status`
   * notification arrives; the test posts every notification itself. */
  webhook?: boolean;
  /** The location's outbound event subscriptions (issue 24), and the dispatcher's overrides. */
  events?: LocationConfig['events'];
  eventDispatcher?: StartOptions['events'];
  /** The sender's `recheckAfterMs` (the last look's re-read of a fresh view); its default otherwise. */
  recheckAfterMs?: number;
}

/**
 * The whole loop on loopback: the emulator, and replyflow (web, worker, sender) on a real
 * store, with replyflow's webhook registered at the emulator.
 */
export async function startReplyLoop(options: ReplyLoopOptions): Promise<ReplyLoop> {
  const logger = options.logStream
    ? createLogger({ level: 'debug', destination: options.logStream })
    : pino({ level: 'silent' });
  const emulator = await startEmulator({
    port: 0,
    keyPairs: [{ id: 'k', secret: 's', location }],
    logger,
    timeScale: 0.01,
    rateLimitPerSecond: Number.POSITIVE_INFINITY,
    ...options.emulator,
  });
  let redis: RedisConnection | undefined;
  let redisStore: ReplyLoop['redis'];
  let store: Store;
  if (options.store === 'memory') store = createMemoryStore({});
  else {
    redisStore =
      options.store === 'cluster'
        ? { clusterNodes: testClusterNodes(), prefix: randomPrefix('rf') }
        : { url: options.redisUrl ?? testRedisUrl(), prefix: randomPrefix('rf') };
    redis = connectRedis(redisStore);
    store = createRedisStore({ redis, prefix: redisStore.prefix, onError: () => {} });
  }
  const config: AppConfig = {
    locations: [
      {
        name: location,
        providerUrl: (await options.providerUrl?.(emulator.baseUrl)) ?? emulator.baseUrl,
        apiKeyId: 'k',
        apiKeySecret: 's',
        webhookSecret,
        rateLimitPerSecond: options.rateLimitPerSecond ?? 1000,
        ...(options.defaultCountry && { defaultCountry: options.defaultCountry }),
        // Tests of other guarantees send many messages to one phone: the loop guard would drop
        // their answers (its own test sets it).
        compliance: options.compliance ?? { loopGuard: { max: 100_000, window: '1m' } },
        ...(options.events && { events: options.events }),
      },
    ],
    botsDir: 'unused',
    publicUrl: undefined,
    redisUrl: undefined,
    redisPrefix: 'unused',
    sendDeadlineMs: options.sendDeadlineMs ?? 3_600_000,
    sendConcurrency: options.sendConcurrency ?? 4,
    workerConcurrency: 4,
    leaseMs: 30_000,
    inDoubtGraceMs: options.inDoubtGraceMs ?? 30_000,
    port: 0,
    logLevel: 'silent',
    ...(options.adminToken && { adminToken: options.adminToken }),
    ...(options.adminReadToken && { adminReadToken: options.adminReadToken }),
  };
  const ownClients =
    options.providerTimeouts &&
    createMessagingClients(config, { timeouts: options.providerTimeouts });
  const app = await startReplyflow({
    config,
    logger,
    store,
    registry: options.registry,
    roles: options.roles,
    clock: options.clock,
    ...(ownClients && { clients: ownClients }),
    worker: { concurrency: 4 },
    sender: {
      sendsInFlight: options.sendConcurrency ?? 4,
      baseDelayMs: 20,
      ...(options.recheckAfterMs !== undefined && { recheckAfterMs: options.recheckAfterMs }),
    },
    ...(options.eventDispatcher && { events: options.eventDispatcher }),
  });
  const webhookUrl = `${app.url}/webhooks/${location}/${webhookSecret}`;
  if (options.webhook !== false) {
    await app.clients.get(location)!.webhooks.ensure(webhookUrl, ['sms.status', 'sms.reply']);
  }

  const instances: RunningReplyflow[] = [];
  const startInstance = async (roles: StartOptions['roles'] = { web: false }) => {
    let own: RedisConnection | undefined;
    let instanceStore = store;
    if (redisStore) {
      own = connectRedis(redisStore);
      instanceStore = createRedisStore({
        redis: own,
        prefix: redisStore.prefix,
        onError: () => {},
      });
    }
    const instance = await startReplyflow({
      config,
      logger: pino({ level: 'silent' }),
      store: instanceStore,
      registry: options.registry,
      roles,
      clock: options.clock,
      clients: app.clients,
      worker: { concurrency: 4 },
      sender: { sendsInFlight: options.sendConcurrency ?? 4, baseDelayMs: 20 },
    });
    const close = instance.close;
    instance.close = async () => {
      await close();
      if (own) {
        await instanceStore.close();
        own.disconnect();
      }
    };
    instances.push(instance);
    return instance;
  };

  const bodiesTo = async (phone: string) => {
    const res = await fetch(`${emulator.url}/_emulator/messages?to=${phone}`);
    return ((await res.json()) as Array<{ body: string }>).map((m) => m.body);
  };
  return {
    emulator,
    app,
    store,
    webhookUrl,
    redis: redisStore,
    async start(phone, botId, input) {
      await startConversation(store, {
        location,
        phone,
        botId,
        input,
        now: (options.clock ?? systemClock).now(),
      });
    },
    async reply(phone, body) {
      // The handset can only answer a message that reached it (sent or delivered).
      await waitFor(
        async () => {
          const res = await fetch(`${emulator.url}/_emulator/replies`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ from: phone, body, location }),
          });
          return res.status === 201;
        },
        { message: `emulator accepts a reply from ${phone}` },
      );
    },
    bodiesTo,
    async emulatorIdle() {
      await waitFor(
        async () => {
          const res = await fetch(`${emulator.url}/_emulator/pending-work`);
          return ((await res.json()) as { count: number }).count === 0;
        },
        {
          timeout: 30_000,
          message: 'the emulator has no work left (deliveries, retries, statuses)',
        },
      );
    },
    async notify(envelope) {
      const res = await fetch(webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: typeof envelope === 'string' ? envelope : JSON.stringify(envelope),
      });
      await res.arrayBuffer();
      return res.status;
    },
    waitForBodies(phone, count, timeout = 10_000) {
      return waitFor(
        async () => {
          const bodies = await bodiesTo(phone);
          return bodies.length >= count && bodies;
        },
        { timeout, message: `${count} SMS to ${phone}` },
      );
    },
    startInstance,
    async close() {
      await Promise.all(instances.map((instance) => instance.close()));
      await app.close();
      await Promise.all([...(ownClients?.values() ?? [])].map((client) => client.close()));
      await emulator.close();
      await store.close();
      redis?.disconnect();
    },
  };
}

/** A reply notification as the service sends it (with the sample's `type: "sms.status"`). */
export function replyNotification(
  id: string,
  phone: string,
  body: string,
  originSmsId = 'sms-origin',
) {
  return {
    id,
    webhookId: 'wh-1',
    type: 'sms.status',
    data: [{ originSms: { id: originSmsId, status: 'received' }, body, from: phone, to: '38200' }],
  };
}

/**
 * Waits until the phone's mailbox and outbox are empty, then a little more, so that anything
 * wrongly pending shows itself before a "nothing more was sent" assertion.
 */
export async function settle(loop: ReplyLoop, phone: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const [events, outbound] = await Promise.all([
      loop.store.pendingEvents({ location, phone }),
      loop.store.pendingOutbound({ location, phone }),
    ]);
    if (events.length === 0 && outbound.length === 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 150));
}
