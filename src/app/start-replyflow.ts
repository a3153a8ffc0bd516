import type { Server } from 'node:http';
import type { Router } from 'express';
import { type AdminRouterOptions, createAdminRouter } from '../admin/create-admin-router.ts';
import type { BotRegistry } from '../bot/bot-registry.ts';
import { dateParsers } from '../bot/intents/match-date.ts';
import { loadBots } from '../bot/load-bots.ts';
import { createCampaignRunner } from '../campaigns/create-campaign-runner.ts';
import type { ComplianceRules } from '../conversation/compliance-rules.ts';
import { createWorker, type WorkerOptions } from '../conversation/create-worker.ts';
import { ConfigError } from '../errors.ts';
import type { Logger } from '../observability/logger.ts';
import { createMetrics, type Metrics } from '../observability/metrics.ts';
import type { EventDispatcherOptions } from '../outbox/create-event-dispatcher.ts';
import { createSender } from '../outbox/create-sender.ts';
import type { SharedLimiter } from '../outbox/shared-limiter.ts';
import { createMessagingClients } from '../provider/create-messaging-clients.ts';
import type { MessagingClient } from '../provider/messaging-client.ts';
import { type Clock, systemClock } from '../scheduler/clock.ts';
import { createScheduler } from '../scheduler/create-scheduler.ts';
import { readActiveStates } from '../stats/read-stats.ts';
import { startReconcileLoop } from '../stats/reconcile-loop.ts';
import type { Store } from '../store/store.ts';
import { defaultRetentionMs } from '../store/store-limits.ts';
import type { AppConfig } from './config.ts';
import { createCampaignLimiters } from './create-campaign-limiters.ts';
import { createClientGateway } from './create-client-gateway.ts';
import { createComplianceRules } from './create-compliance-rules.ts';
import { createEventDelivery } from './create-event-delivery.ts';
import { createHardenedServer } from './create-hardened-server.ts';
import { createHttpApp, createHttpListener, type HttpAppOptions } from './create-http-app.ts';
import { createSendLimiters } from './create-send-limiters.ts';
import { listenOn } from './listen-on.ts';
import { logBotTexts } from './log-bot-texts.ts';
import { logTurn } from './log-turn.ts';
import { turnLabels, webhookOutcome } from './metric-labels.ts';
import { openStore } from './open-store.ts';
import { registerWebhooks } from './register-webhooks.ts';
import { stopGracefully } from './stop-gracefully.ts';

export interface StartOptions {
  config: AppConfig;
  logger: Logger;
  /** Which parts run in this process. `start` runs all; `worker` runs all but the web server. */
  roles?: { web?: boolean; worker?: boolean; sender?: boolean; scheduler?: boolean };
  /** Overrides of the outbound events' dispatcher (tests: a short backoff, another poster). */
  events?: Partial<EventDispatcherOptions>;
  /** Interface the web server listens on. Default 0.0.0.0 (`start`, `web`); `dev` uses 127.0.0.1. */
  host?: string;
  /**
   * A stop asked for while this start is still under way (SIGTERM): what the start waits for
   * (registering the webhooks while the store is down) is given up, and it resolves at once with
   * what runs, for `close()`.
   */
  signal?: AbortSignal;
  /** Injected for tests and `dev`; built from the config otherwise. */
  store?: Store;
  registry?: BotRegistry;
  clients?: Map<string, MessagingClient>;
  clock?: Clock;
  worker?: {
    concurrency?: number;
    leaseMs?: number;
    /** Called after each committed step, besides the turn log (`replyflow chat` follows them). */
    onStep?: WorkerOptions['onStep'];
  };
  sender?: {
    sendsInFlight?: number;
    lanes?: number;
    baseDelayMs?: number;
    sendDeadlineMs?: number;
    recheckAfterMs?: number;
  };
  /** Shared per-location send limiters; built from the store's Redis (or in memory) otherwise. */
  sendLimiters?: Map<string, SharedLimiter>;
  scheduler?: { intervalMs?: number };
  /** Sees every request of the web server first (`dev`: the Host check); see `createHttpListener`. */
  guard?: HttpAppOptions['guard'];
  /**
   * Requests `/admin` serves with full access and no credential (`dev`: those from loopback);
   * see `createAdminRouter`.
   */
  adminOpenTo?: AdminRouterOptions['openTo'];
  /** Routers mounted beside the webhook (the dev phone, the embedded emulator). */
  extra?: (context: { store: Store; registry: BotRegistry; clock: Clock }) => Router[];
  /** Where the metrics go; a registry of this app's own otherwise. */
  metrics?: Metrics;
}

export interface RunningReplyflow {
  /** `http://127.0.0.1:PORT` when the web role runs. */
  url: string | undefined;
  /** Where a process without the web role serves /healthz, /readyz and /metrics (REPLYFLOW_HEALTH_PORT). */
  healthUrl: string | undefined;
  metrics: Metrics;
  /** True once `close()` was called: the webhook and /readyz answer 503. */
  readonly draining: boolean;
  store: Store;
  registry: BotRegistry;
  clients: Map<string, MessagingClient>;
  /** Fires due timers now (tests call it after moving a manual clock); undefined without the role. */
  fireDueTimers: (() => Promise<number>) | undefined;
  /** Starts every campaign recipient due now (tests call it after moving a manual clock); undefined without the scheduler role. */
  fireDueCampaigns: (() => Promise<void>) | undefined;
  /**
   * Stops gracefully, within REPLYFLOW_STOP_TIMEOUT: the webhook and /readyz answer 503, the
   * steps and sends in flight finish, every claim is released, then the servers and the store
   * close. Past the timeout, what remains is left to its lease. Never rejects.
   */
  close(): Promise<void>;
}

/**
 * The composition root: builds the store, the bots, the clients, the web server, the worker
 * and the sender from the configuration, and starts the roles asked for.
 */
export async function startReplyflow(options: StartOptions): Promise<RunningReplyflow> {
  const { config, logger } = options;
  const roles = { web: true, worker: true, sender: true, scheduler: true, ...options.roles };
  const clock = options.clock ?? systemClock;
  if (config.locations.length === 0 && !options.clients) {
    throw new ConfigError(
      'no location is configured: set REPLYFLOW_PROVIDER_URL, REPLYFLOW_API_KEY_ID and REPLYFLOW_API_KEY_SECRET ' +
        '(or REPLYFLOW_CONFIG), or run `replyflow dev` to use the built-in emulator',
    );
  }
  const registry = options.registry ?? (await loadBots(config.botsDir));
  if (!options.registry) logBotTexts(registry, logger);
  const compliance = createComplianceRules(config.locations);
  const opened = options.store ? undefined : openStore(config, logger);
  const store = options.store ?? opened!.store;
  const limiters =
    options.sendLimiters ?? createSendLimiters(config.locations, opened?.redis, config.redisPrefix);
  const clients = options.clients ?? createMessagingClients(config, { logger, limiters });
  const secrets = new Map<string, string>();
  const defaultCountries = new Map<string, string>();
  for (const location of config.locations) {
    if (location.defaultCountry) defaultCountries.set(location.name, location.defaultCountry);
    if (location.webhookSecret) secrets.set(location.name, location.webhookSecret);
    else if (roles.web) {
      throw new ConfigError(
        `location '${location.name}' has no webhook secret: set REPLYFLOW_WEBHOOK_SECRET (openssl rand -hex 16) or webhookSecret in the config file`,
      );
    }
  }

  // The bots of now (dev reloads them), in every location: what the activity counters cover.
  const everyBot = () =>
    config.locations.flatMap(({ name }) =>
      [...registry.bots.keys()].map((bot) => ({ location: name, bot })),
    );
  const metrics =
    options.metrics ??
    createMetrics({
      sample: () => store.sample(),
      activeStates: () => readActiveStates(store, everyBot()),
    });
  let draining = false;
  const sender = roles.sender
    ? createSender({
        store,
        gateway: createClientGateway(clients),
        clock,
        logger,
        limiters,
        sendDeadlineMs: config.sendDeadlineMs,
        sendsInFlight: config.sendConcurrency,
        leaseMs: config.leaseMs,
        inDoubtGraceMs: config.inDoubtGraceMs,
        quietUntil: (location, now) => compliance(location).quietUntil(now),
        onSend: (result, durationMs) => metrics.send(result, durationMs),
        ...options.sender,
      })
    : undefined;
  // Outbound events (issue 24): queued by the steps of locations with subscriptions, delivered
  // by a dispatcher next to the sender, off the conversation's path.
  const events = createEventDelivery({
    locations: config.locations,
    store,
    clock,
    logger,
    metrics,
    sender: roles.sender,
    leaseMs: config.leaseMs,
    overrides: options.events,
  });
  const turn = logTurn(logger);
  const onStep: WorkerOptions['onStep'] = (outcome, claim, durationMs) => {
    turn(outcome, claim);
    const labels = turnLabels(outcome);
    metrics.turn(labels.bot, labels.outcome, durationMs);
    options.worker?.onStep?.(outcome, claim, durationMs);
  };
  const scheduler = roles.scheduler
    ? createScheduler({
        store,
        clock,
        logger,
        onFired: (count) => metrics.timersFired(count),
        ...options.scheduler,
      })
    : undefined;
  // The scheduler role also starts campaign recipients on time, at each campaign's rate.
  const campaigns = roles.scheduler
    ? createCampaignRunner({
        store,
        clock,
        logger,
        registry,
        limiterFor: createCampaignLimiters(opened?.redis, config.redisPrefix),
        quietUntil: (location, now) => compliance(location).quietUntil(now),
        // A runner that dies leaves its chunks to the others after the same lease as its claims.
        leaseMs: config.leaseMs,
        // A keyed API start is remembered as long as the rest: REPLYFLOW_RETENTION.
        pruneApiStarts: {
          locations: config.locations.map((location) => location.name),
          keepMs: config.retentionMs ?? defaultRetentionMs,
        },
      })
    : undefined;
  // A worker loads the date parsers now, so that the first answer reading a date does not wait
  // for them (matchDate loads them on demand elsewhere).
  if (roles.worker) dateParsers();
  // A worker next to a sender hands it the outboxes its commits claim, and tells the scheduler
  // next to it of the timers they set.
  const worker = roles.worker
    ? createWorker({
        store,
        registry,
        clock,
        logger,
        concurrency: config.workerConcurrency,
        leaseMs: config.leaseMs,
        outboxHandOff: sender?.handOff,
        scheduler,
        compliance,
        ...(events.hasSubscriptions && { hasSubscriptions: events.hasSubscriptions }),
        ...(events.dispatcher && { events: events.dispatcher }),
        ...options.worker,
        onStep,
      })
    : undefined;
  const ops = {
    store,
    registry,
    draining: () => draining,
    metrics,
    adminToken: config.adminToken,
  };
  let server: Server | undefined;
  let url: string | undefined;
  if (roles.web) {
    const extra = options.extra?.({ store, registry, clock }) ?? [];
    const admin = createAdminRouter({
      store,
      registry,
      clock,
      config,
      logger,
      openTo: options.adminOpenTo,
    });
    // A web role next to a worker steps the replies of idle conversations in the request (the
    // direct turn) and hands the worker the conversations its ingests make ready.
    server = createHardenedServer(
      createHttpListener({
        store,
        clock,
        logger,
        secrets,
        defaultCountries,
        extra: [admin, ...extra],
        trustProxy: config.trustProxy,
        inboxHandOff: worker?.handOff,
        ...(worker && { directTurn: worker.direct }),
        optsOut: (location, body) => optsOutWhateverBot(compliance(location), registry, body),
        ops,
        guard: options.guard,
        gate: {
          draining: () => draining,
          maxInflight: config.maxInflight ?? 512,
          onRefused: (outcome) => metrics.notification('unknown', outcome),
        },
        onNotification: (result, durationMs) =>
          metrics.notification(result.type ?? 'unknown', webhookOutcome(result), durationMs),
      }),
    );
    try {
      url = await listenOn(server, config.port, options.host ?? '0.0.0.0');
    } catch (error) {
      if (opened) {
        await store.close();
        await opened.redis?.quit();
      }
      throw error;
    }
    logger.info({ url, bots: [...registry.bots.keys()] }, 'replyflow is listening');
  }
  // A process without the web role still answers its orchestrator's probes and the scraper.
  let healthServer: Server | undefined;
  let healthUrl: string | undefined;
  if (!roles.web && config.healthPort !== undefined) {
    healthServer = createHardenedServer(
      createHttpApp({ store, clock, logger, secrets: new Map(), ops }),
    );
    healthUrl = await listenOn(healthServer, config.healthPort, options.host ?? '0.0.0.0');
    logger.info({ url: healthUrl }, 'health, readiness and metrics are served');
  }
  worker?.start();
  sender?.start();
  events.dispatcher?.start();
  scheduler?.start();
  campaigns?.start();
  // The scheduler role also recounts the activity gauges from the records, hourly (one process).
  const reconcile = roles.scheduler
    ? startReconcileLoop({ store, clock, logger, bots: everyBot })
    : undefined;
  if (roles.web && config.publicUrl) {
    await registerWebhooks(config, clients, logger, { store, signal: options.signal });
  }

  let closing: Promise<void> | undefined;
  const stop = () => {
    draining = true;
    reconcile?.stop();
    return stopGracefully({
      timeoutMs: config.stopTimeoutMs ?? 10_000,
      logger,
      consumers: [worker, sender, scheduler, campaigns, events.dispatcher],
      servers: [server, healthServer],
      store: opened ? { store, redis: opened.redis } : undefined,
      clients: options.clients ? [] : [...clients.values()],
    });
  };

  return {
    url,
    healthUrl,
    metrics,
    get draining() {
      return draining;
    },
    store,
    registry,
    clients,
    fireDueTimers: scheduler?.tick,
    fireDueCampaigns: campaigns?.tick,
    close() {
      closing ??= stop();
      return closing;
    },
  };
}

/**
 * The opt-out keyword `body` is whatever conversation the phone is in (one that no loaded bot
 * claims: STOP and ARRET never can be), or undefined. Most replies are no keyword at all, and
 * cost one lookup.
 */
function optsOutWhateverBot(
  rules: ComplianceRules,
  registry: BotRegistry,
  body: string,
): string | undefined {
  if (rules.match(body)?.kind !== 'opt-out') return undefined;
  const claimed = new Set<string>();
  for (const bot of registry.bots.values()) for (const word of bot.claims) claimed.add(word);
  const match = rules.match(body, claimed);
  return match?.kind === 'opt-out' ? match.keyword : undefined;
}
