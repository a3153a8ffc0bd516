import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { StoreSample } from '../store/store-sample.ts';

/** What became of one message the sender handled (`replyflow_sends_total{result}`). */
export type SendResult = 'sent' | 'failed' | 'retry' | 'suppressed' | 'in_doubt' | 'loop_guard';

/** What became of one notification at the webhook (`replyflow_notifications_total{outcome}`). */
export type NotificationOutcome =
  | 'accepted'
  | 'duplicate'
  | 'rejected'
  | 'unavailable'
  | 'draining'
  | 'overloaded';

export interface MetricsOptions {
  /** Reads the store at scrape time (`Store.sample`); the gauges it feeds stay empty without it. */
  sample?: () => Promise<StoreSample>;
  /**
   * Active conversations per bot and state, exact (the activity gauges,
   * `stats/read-stats.ts`'s `readActiveStates`); without it, counted from the sample.
   */
  activeStates?: () => Promise<Array<{ bot: string; state: string; count: number }>>;
  /** A sample younger than this is reused, so frequent scrapes cost the store nothing more. Default 1 s. */
  sampleMaxAgeMs?: number;
}

export interface Metrics {
  /** This app's registry (not prom-client's global one: several apps may share a process). */
  readonly registry: Registry;
  notification(type: string, outcome: NotificationOutcome, durationMs?: number): void;
  turn(bot: string, outcome: string, durationMs?: number): void;
  send(result: SendResult, durationMs?: number): void;
  timersFired(count: number): void;
  /** One outbound event's delivery round (issue 24): delivered, retry or dead_letter. */
  outboundWebhook(result: 'delivered' | 'retry' | 'dead_letter', durationMs?: number): void;
}

const secondsBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * replyflow's Prometheus metrics, with Node's default ones, in a registry of their own. The
 * counters and histograms move as work happens; the conversation, outbox and dead-letter gauges
 * are read from the store when `/metrics` is scraped (at most every `sampleMaxAgeMs`).
 */
export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const notifications = new Counter({
    name: 'replyflow_notifications_total',
    help: 'Webhook notifications, by item type (reply, status, mixed, unknown) and outcome',
    labelNames: ['type', 'outcome'],
    registers,
  });
  const ingestDuration = new Histogram({
    name: 'replyflow_ingest_duration_seconds',
    help: 'Time from a notification arriving to its answer (stored, refused or 503)',
    buckets: secondsBuckets,
    registers,
  });
  const turns = new Counter({
    name: 'replyflow_turns_total',
    help: 'Conversation steps committed, by bot and outcome (deliver, start, drop, errored, ended)',
    labelNames: ['bot', 'outcome'],
    registers,
  });
  const stepDuration = new Histogram({
    name: 'replyflow_step_duration_seconds',
    help: 'Time to run and commit one conversation step',
    buckets: secondsBuckets,
    registers,
  });
  const sends = new Counter({
    name: 'replyflow_sends_total',
    help: 'Messages the sender handled, by result (sent, failed, retry, suppressed, in_doubt, loop_guard)',
    labelNames: ['result'],
    registers,
  });
  const sendDuration = new Histogram({
    name: 'replyflow_send_duration_seconds',
    help: 'Duration of POST /sms requests to the messaging service',
    buckets: secondsBuckets,
    registers,
  });
  const timers = new Counter({
    name: 'replyflow_timers_fired_total',
    help: 'Durable timers moved into their conversations when due',
    registers,
  });
  for (const result of ['sent', 'failed', 'retry', 'suppressed', 'in_doubt', 'loop_guard']) {
    sends.inc({ result }, 0);
  }
  const webhooks = new Counter({
    name: 'replyflow_outbound_webhooks_total',
    help: 'Outbound event delivery rounds, by result (delivered, retry, dead_letter)',
    labelNames: ['result'],
    registers,
  });
  const webhookDuration = new Histogram({
    name: 'replyflow_outbound_webhook_duration_seconds',
    help: "Time for one outbound event's delivery round to its subscriptions",
    buckets: secondsBuckets,
    registers,
  });
  for (const result of ['delivered', 'retry', 'dead_letter']) webhooks.inc({ result }, 0);

  const latest = sampler(options);
  new Gauge({
    name: 'replyflow_conversations_active',
    help: 'Active conversations by bot and state, from the counters the commits move',
    labelNames: ['bot', 'state'],
    registers,
    async collect() {
      const active = options.activeStates
        ? await options.activeStates().catch(() => undefined)
        : (await latest())?.active;
      this.reset();
      for (const { bot, state, count } of active ?? []) {
        this.set({ bot, state }, count);
      }
    },
  });
  new Gauge({
    name: 'replyflow_outbox_depth',
    help: 'Conversations with messages waiting to be sent, sampled from the store',
    registers,
    async collect() {
      const sample = await latest();
      if (sample) this.set(sample.outboxDepth);
    },
  });
  new Gauge({
    name: 'replyflow_dead_letters',
    help: 'Dead letters kept in the store (notifications that could not be used; capped)',
    registers,
    async collect() {
      const sample = await latest();
      if (sample) this.set(sample.deadLetters);
    },
  });

  return {
    registry,
    notification(type, outcome, durationMs) {
      notifications.inc({ type, outcome });
      if (durationMs !== undefined) ingestDuration.observe(durationMs / 1_000);
    },
    turn(bot, outcome, durationMs) {
      turns.inc({ bot, outcome });
      if (durationMs !== undefined) stepDuration.observe(durationMs / 1_000);
    },
    outboundWebhook(result, durationMs) {
      webhooks.inc({ result });
      if (durationMs !== undefined) webhookDuration.observe(durationMs / 1_000);
    },
    send(result, durationMs) {
      sends.inc({ result });
      if (durationMs !== undefined) sendDuration.observe(durationMs / 1_000);
    },
    timersFired(count) {
      if (count > 0) timers.inc(count);
    },
  };
}

/**
 * The store sample the gauges share: one read per scrape (the three gauges ask together), reused
 * while fresh. A failed read leaves the gauges as they were rather than failing the scrape.
 */
function sampler(options: MetricsOptions): () => Promise<StoreSample | undefined> {
  const maxAgeMs = options.sampleMaxAgeMs ?? 1_000;
  let last: { at: number; sample: Promise<StoreSample | undefined> } | undefined;
  return () => {
    if (!options.sample) return Promise.resolve(undefined);
    const now = Date.now();
    if (!last || now - last.at >= maxAgeMs) {
      last = { at: now, sample: options.sample().catch(() => undefined) };
    }
    return last.sample;
  };
}
