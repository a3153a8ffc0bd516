import type { LookupFunction } from 'node:net';
import type { Logger } from '../observability/logger.ts';
import type { Clock } from '../scheduler/clock.ts';
import type { DeliveryLog } from './delivery-log.ts';
import type { EmulatorConfig, RecipientOutcome } from './emulator-options.ts';
import type { EndpointFaults } from './endpoint-faults.ts';
import type { EventStream } from './event-stream.ts';
import type { LocationStore } from './location-store.ts';
import type { MessageStore } from './message-store.ts';
import type { NextFailures } from './next-failures.ts';
import type { PendingWork } from './pending-work.ts';
import type { RateLimiter } from './rate-limiter.ts';
import type { RequestLog } from './request-log.ts';
import type { SmsLifecycle } from './sms-lifecycle.ts';
import type { WebhookDispatcher } from './webhook-dispatcher.ts';
import type { WebhookFaults } from './webhook-faults.ts';

/** Everything one emulator instance holds; its routes get this and nothing else. */
export interface EmulatorContext {
  config: EmulatorConfig;
  clock: Clock;
  logger: Logger;
  /** Resolves webhook hosts for the address checks. */
  lookup: LookupFunction;
  messages: MessageStore;
  locations: LocationStore;
  outcomes: Map<string, RecipientOutcome>;
  /** One-shot failures for the next SMS to a number. */
  nextFailures: NextFailures;
  work: PendingWork;
  lifecycle: SmsLifecycle;
  dispatcher: WebhookDispatcher;
  deliveryLog: DeliveryLog;
  requestLog: RequestLog;
  events: EventStream;
  endpointFaults: EndpointFaults;
  webhookFaults: WebhookFaults;
  rateLimiter: RateLimiter;
  /** Clears messages, logs, faults, webhooks, groups and scripted outcomes; keeps key pairs. */
  reset(): void;
}
