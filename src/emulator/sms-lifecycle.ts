import { randomUUID } from 'node:crypto';
import type { Logger } from '../observability/logger.ts';
import { maskPhone } from '../observability/mask-phone.ts';
import type { SendSmsRequest } from '../provider/schemas/sms.ts';
import type { Clock } from '../scheduler/clock.ts';
import { countParts } from './count-parts.ts';
import type { EmulatorConfig, RecipientOutcome } from './emulator-options.ts';
import type { EventStream } from './event-stream.ts';
import type { LocationStore } from './location-store.ts';
import { type MessageStore, type StoredSms, toServiceSms } from './message-store.ts';
import type { NextFailures } from './next-failures.ts';
import type { PendingWork } from './pending-work.ts';
import type { WebhookDispatcher } from './webhook-dispatcher.ts';

export interface SmsLifecycleDeps {
  config: EmulatorConfig;
  messages: MessageStore;
  locations: LocationStore;
  /** What each recipient's handset does; a number not listed gets `delivered`. */
  outcomes: Map<string, RecipientOutcome>;
  /** One-shot failures armed for the next SMS to a number (the dev phone's). */
  nextFailures?: NextFailures;
  work: PendingWork;
  dispatcher: WebhookDispatcher;
  events: EventStream;
  clock: Clock;
  logger: Logger;
}

/**
 * The life of an accepted SMS (spec §3): pending, then after `sentAfterMs` processing (errored
 * `invalid_phone_number` or `insufficient_balance` with price 0, or sent with its price debited),
 * then after `reportAfterMs` the delivery report (delivered `DELIVRD` or errored `EXPIRED`;
 * none for a silent handset). Each change after pending sends an `sms.status` notification.
 */
export class SmsLifecycle {
  constructor(private readonly deps: SmsLifecycleDeps) {}

  /** Stores a validated request as a pending SMS and schedules its processing. */
  accept(location: string, request: SendSmsRequest): StoredSms {
    const { messages, work, config, clock } = this.deps;
    const now = new Date(clock.now()).toISOString();
    const sms = messages.add({
      ...request,
      id: randomUUID(),
      status: 'pending',
      statusReason: '',
      createdAt: now,
      updatedAt: now,
      // Charged when processed, not before.
      price: 0,
      parts: countParts(request.body),
      location,
    });
    this.deps.nextFailures?.bind(sms.to, sms.id);
    this.deps.events.publish('sms.created', sms);
    this.deps.logger.info(
      { location, sms: sms.id, to: maskPhone(sms.to), parts: sms.parts },
      'sms accepted',
    );
    work.after(config.sentAfterMs, () => this.#process(sms.id));
    return sms;
  }

  #process(id: string): void {
    const { messages, locations, config, work } = this.deps;
    const sms = messages.get(id);
    if (!sms) return;
    const forced = this.deps.nextFailures?.of(id);
    if (this.#outcome(sms) === 'invalid' || forced === 'invalid_phone_number') {
      this.deps.nextFailures?.settle(id);
      this.#change(id, { status: 'errored', statusReason: 'invalid_phone_number', price: 0 });
      return;
    }
    const account = locations.get(sms.location);
    const price = roundMoney(sms.parts * config.unitPrice);
    if (account.balance < price || forced === 'insufficient_balance') {
      this.deps.nextFailures?.settle(id);
      this.#change(id, { status: 'errored', statusReason: 'insufficient_balance', price: 0 });
      return;
    }
    account.balance = roundMoney(account.balance - price);
    this.#change(id, { status: 'sent', statusReason: '', price });
    work.after(config.reportAfterMs, () => this.#report(id));
  }

  #report(id: string): void {
    const sms = this.deps.messages.get(id);
    if (!sms) return;
    if (this.deps.nextFailures?.of(id) === 'EXPIRED') {
      this.deps.nextFailures.settle(id);
      this.#change(id, { status: 'errored', statusReason: 'EXPIRED' });
      return;
    }
    switch (this.#outcome(sms)) {
      case 'silent':
        return;
      case 'expired':
        this.#change(id, { status: 'errored', statusReason: 'EXPIRED' });
        return;
      default:
        this.#change(id, { status: 'delivered', statusReason: 'DELIVRD' });
    }
  }

  #outcome(sms: StoredSms): RecipientOutcome {
    return this.deps.outcomes.get(sms.to) ?? 'delivered';
  }

  #change(id: string, changes: Parameters<MessageStore['update']>[1]): void {
    const sms = this.deps.messages.update(id, changes);
    if (!sms) return;
    this.deps.events.publish('sms.status', sms);
    this.deps.logger.info(
      { location: sms.location, sms: id, status: sms.status, statusReason: sms.statusReason },
      'sms status changed',
    );
    this.deps.dispatcher.notify(sms.location, 'sms.status', [toServiceSms(sms)]);
  }
}

/** Prices are in currency units; rounding keeps 0.05 × 3 from printing as 0.15000000000000002. */
function roundMoney(amount: number): number {
  return Math.round(amount * 1e6) / 1e6;
}
