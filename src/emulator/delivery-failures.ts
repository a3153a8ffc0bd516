import { z } from 'zod';

/**
 * Body of `POST /_emulator/delivery-failures`: the next SMS accepted for `to` ends `errored`
 * with `statusReason`. `invalid_phone_number` and `insufficient_balance` strike when the
 * message is processed (never sent, price 0), as the service does; any other reason
 * (`EXPIRED`…) comes as the delivery report after `sent`.
 */
export const deliveryFailureRequestSchema = z.object({
  to: z.string().regex(/^\d+$/, 'digits with the country prefix, as in `to` of POST /sms'),
  statusReason: z.string().trim().min(1, 'name the reason, such as EXPIRED'),
});
export type DeliveryFailure = z.infer<typeof deliveryFailureRequestSchema>;

/** Reasons that strike before the message is sent (spec §3: pending → errored). */
export const failsBeforeSending = new Set(['invalid_phone_number', 'insufficient_balance']);

/** One-shot failures armed per number, consumed in order by the next messages to it. */
export class DeliveryFailures {
  #armed: DeliveryFailure[] = [];

  add(failure: DeliveryFailure): void {
    this.#armed.push({ ...failure });
  }

  /** The reason the message just accepted for `to` will fail with, if one was armed; consumes it. */
  take(to: string): string | undefined {
    const index = this.#armed.findIndex((failure) => failure.to === to);
    if (index < 0) return undefined;
    return this.#armed.splice(index, 1)[0]!.statusReason;
  }

  list(): DeliveryFailure[] {
    return this.#armed.map((failure) => ({ ...failure }));
  }

  clear(): void {
    this.#armed = [];
  }
}
