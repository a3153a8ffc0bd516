import { lookup as dnsLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { createLogger } from '../observability/logger.ts';
import { type Clock, systemClock } from '../scheduler/clock.ts';
import { DeliveryLog } from './delivery-log.ts';
import type { EmulatorContext } from './emulator-context.ts';
import { type EmulatorOptions, resolveEmulatorOptions, seededColumns } from './emulator-options.ts';
import { EndpointFaults } from './endpoint-faults.ts';
import { EventStream } from './event-stream.ts';
import { LocationStore } from './location-store.ts';
import { MessageStore } from './message-store.ts';
import { NextFailures } from './next-failures.ts';
import { PendingWork } from './pending-work.ts';
import { RateLimiter } from './rate-limiter.ts';
import { RequestLog } from './request-log.ts';
import { SmsLifecycle } from './sms-lifecycle.ts';
import { WebhookDispatcher } from './webhook-dispatcher.ts';
import { WebhookFaults } from './webhook-faults.ts';

/** Time and randomness, injectable for tests; real ones by default. */
export interface EmulatorDeps {
  clock?: Clock;
  /** Draws the `rate` of injected endpoint faults. */
  random?: () => number;
  /** Resolves webhook hosts (registration and delivery checks); `dns.lookup` by default. */
  lookup?: LookupFunction;
}

/** Builds the state and the moving parts of one emulator, with no HTTP. */
export function createEmulatorContext(
  options: EmulatorOptions,
  deps: EmulatorDeps = {},
): EmulatorContext {
  const config = resolveEmulatorOptions(options);
  const clock = deps.clock ?? systemClock;
  const lookup = deps.lookup ?? dnsLookup;
  const logger = (options.logger ?? createLogger({ level: 'silent' })).child({
    component: 'emulator',
  });
  const work = new PendingWork(config.timeScale, logger);
  const events = new EventStream();
  const messages = new MessageStore(clock);
  const locations = new LocationStore({
    initialBalance: config.initialBalance,
    columns: (venueId) => seededColumns(config, venueId),
  });
  const outcomes: EmulatorContext['outcomes'] = new Map();
  const nextFailures = new NextFailures();
  const deliveryLog = new DeliveryLog();
  const requestLog = new RequestLog();
  const endpointFaults = new EndpointFaults(deps.random);
  const webhookFaults = new WebhookFaults();
  const rateLimiter = new RateLimiter(config.rateLimitPerSecond);
  const dispatcher = new WebhookDispatcher({
    config,
    locations,
    work,
    events,
    clock,
    logger,
    lookup,
    faults: webhookFaults,
    log: deliveryLog,
  });
  const lifecycle = new SmsLifecycle({
    config,
    messages,
    locations,
    outcomes,
    nextFailures,
    work,
    dispatcher,
    events,
    clock,
    logger,
  });
  const context: EmulatorContext = {
    config,
    clock,
    logger,
    lookup,
    messages,
    locations,
    outcomes,
    nextFailures,
    work,
    lifecycle,
    dispatcher,
    deliveryLog,
    requestLog,
    events,
    endpointFaults,
    webhookFaults,
    rateLimiter,
    reset() {
      // Timers first, so no status change or retry lands in the emptied stores.
      work.cancelAll();
      messages.clear();
      locations.clear();
      outcomes.clear();
      nextFailures.clear();
      deliveryLog.clear();
      requestLog.clear();
      endpointFaults.clear();
      webhookFaults.clear();
      rateLimiter.clear();
      rateLimiter.perSecond = config.rateLimitPerSecond;
    },
  };
  return context;
}
