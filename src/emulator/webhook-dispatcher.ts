import { randomUUID } from 'node:crypto';
import type { LookupFunction } from 'node:net';
import { Agent } from 'undici';
import type { Logger } from '../observability/logger.ts';
import type { Notification } from '../provider/schemas/notification.ts';
import type { Webhook, WebhookEvent } from '../provider/schemas/webhook.ts';
import type { Clock } from '../scheduler/clock.ts';
import type { DeliveryLog, DeliveryLogEntry } from './delivery-log.ts';
import type { EmulatorConfig } from './emulator-options.ts';
import type { EventStream } from './event-stream.ts';
import type { LocationStore } from './location-store.ts';
import type { PendingWork } from './pending-work.ts';
import { postNotification } from './post-notification.ts';
import { webhookConnector } from './webhook-connector.ts';
import type { WebhookFaults } from './webhook-faults.ts';

export interface WebhookDispatcherDeps {
  config: EmulatorConfig;
  locations: LocationStore;
  work: PendingWork;
  faults: WebhookFaults;
  log: DeliveryLog;
  events: EventStream;
  clock: Clock;
  logger: Logger;
  lookup: LookupFunction;
}

interface Delivery {
  location: string;
  event: WebhookEvent;
  webhook: Webhook;
  notification: Notification;
}

/**
 * Sends notifications to the webhooks of a location (spec §6): one notification, with its own
 * id, per subscribed webhook. A failed attempt (non-2xx, or no answer within the deadline) is
 * retried after `baseMs × 2^n` (n = 0 for the first retry) with the SAME notification id;
 * after the last retry fails the notification is discarded. Every attempt is logged.
 */
export class WebhookDispatcher {
  // Our own connection pool, so close() can drop every socket to the receivers.
  readonly #agent: Agent;

  constructor(private readonly deps: WebhookDispatcherDeps) {
    this.#agent = new Agent({
      keepAliveTimeout: 1000,
      // As a real service, a bounded number of connections per receiver: past it, deliveries wait
      // for one (a burst of thousands of statuses would otherwise open as many sockets).
      connections: 128,
      connect: webhookConnector(deps.config, deps.lookup),
    });
  }

  notify(location: string, event: WebhookEvent, data: unknown[]): Notification[] {
    const type = event === 'sms.reply' ? this.deps.config.replyEnvelopeType : event;
    const notifications: Notification[] = [];
    for (const webhook of this.deps.locations.get(location).webhooks.values()) {
      if (!webhook.events.includes(event)) continue;
      const notification = { id: randomUUID(), webhookId: webhook.id, type, data };
      notifications.push(notification);
      this.#start({ location, event, webhook, notification }, 1);
    }
    return notifications;
  }

  async close(): Promise<void> {
    await this.#agent.destroy();
  }

  #start(delivery: Delivery, attempt: number): void {
    this.#attempt(delivery, attempt).catch((error: unknown) =>
      this.deps.logger.error({ err: error }, 'webhook delivery failed inside the emulator'),
    );
  }

  async #attempt(delivery: Delivery, attempt: number): Promise<void> {
    const { config, work, faults, clock } = this.deps;
    if (!this.#stillRegistered(delivery)) {
      this.#record(delivery, attempt - 1, clock.now(), 0, {
        outcome: 'discarded',
        error: 'webhook deleted',
      });
      return;
    }
    const startedAt = clock.now();
    const started = performance.now();
    const mode = faults.take(delivery.webhook.url);
    const result =
      mode === 'fail'
        ? { outcome: 'injected_failure' as const }
        : await postNotification(delivery.webhook.url, delivery.notification, {
            work,
            dispatcher: this.#agent,
            deadlineMs: work.scaled(config.deliveryTimeoutMs),
            ignoreAnswer: mode === 'hang',
          });
    if (result === 'cancelled') return;
    const durationMs = Math.round(performance.now() - started);
    if (result.outcome === 'ok') {
      this.#record(delivery, attempt, startedAt, durationMs, result);
      return;
    }
    if (attempt > config.maxRetries) {
      this.#record(delivery, attempt, startedAt, durationMs, result);
      this.#record(delivery, attempt, clock.now(), 0, { outcome: 'discarded' });
      this.deps.logger.warn(
        {
          notificationId: delivery.notification.id,
          webhookId: delivery.webhook.id,
          attempts: attempt,
        },
        'notification discarded after its last retry failed',
      );
      return;
    }
    const backoffMs = config.retryBaseMs * 2 ** (attempt - 1);
    this.#record(delivery, attempt, startedAt, durationMs, {
      ...result,
      retryInMs: work.scaled(backoffMs),
    });
    work.after(backoffMs, () => this.#start(delivery, attempt + 1));
  }

  #stillRegistered({ location, webhook }: Delivery): boolean {
    return this.deps.locations.get(location).webhooks.has(webhook.id);
  }

  #record(
    delivery: Delivery,
    attempt: number,
    startedAt: number,
    durationMs: number,
    result: Pick<DeliveryLogEntry, 'outcome' | 'httpStatus' | 'error' | 'retryInMs'>,
  ): void {
    const entry: DeliveryLogEntry = {
      notificationId: delivery.notification.id,
      webhookId: delivery.webhook.id,
      url: delivery.webhook.url,
      event: delivery.event,
      attempt,
      startedAt,
      durationMs,
      ...result,
    };
    this.deps.log.add(entry);
    this.deps.events.publish('delivery', entry);
  }
}
