import { z } from 'zod';

/** The ways the next SMS to a number can be made to fail, named by the `statusReason` it gets. */
export const nextFailureReasons = [
  'EXPIRED',
  'invalid_phone_number',
  'insufficient_balance',
] as const;
export type NextFailureReason = (typeof nextFailureReasons)[number];

/** Body of `POST /_emulator/next-failures`. */
export const nextFailureRequestSchema = z.object({
  phone: z.string().regex(/^\d+$/, 'digits with the country prefix, as in `to` of POST /sms'),
  reason: z.enum(nextFailureReasons),
});

/**
 * One-shot failures: the next SMS accepted for a phone fails with the armed reason, and the ones
 * after it do not. Unlike a scripted outcome (`PUT /_emulator/outcomes/:phone`, which holds for
 * every later message), this is the dev phone's "make the next delivery fail". The reason is
 * bound to the SMS when it is accepted, so other messages in flight are not touched.
 * `invalid_phone_number` and `insufficient_balance` strike when the SMS is processed (price 0,
 * nothing debited), `EXPIRED` when its delivery report comes.
 */
export class NextFailures {
  readonly #armed = new Map<string, NextFailureReason[]>();
  readonly #bySms = new Map<string, NextFailureReason>();

  /** Arms one failure for the next SMS to `phone` (queued after those already armed). */
  arm(phone: string, reason: NextFailureReason): void {
    const queue = this.#armed.get(phone);
    if (queue) queue.push(reason);
    else this.#armed.set(phone, [reason]);
  }

  /** Called when an SMS to `phone` is accepted: it takes the phone's first armed failure. */
  bind(phone: string, smsId: string): void {
    const queue = this.#armed.get(phone);
    const reason = queue?.shift();
    if (reason === undefined) return;
    if (queue!.length === 0) this.#armed.delete(phone);
    this.#bySms.set(smsId, reason);
  }

  /** The failure bound to an SMS, if any. */
  of(smsId: string): NextFailureReason | undefined {
    return this.#bySms.get(smsId);
  }

  /** The SMS has failed as armed; forget it. */
  settle(smsId: string): void {
    this.#bySms.delete(smsId);
  }

  /** The failures armed and not yet bound, per phone. */
  list(): Array<{ phone: string; reasons: NextFailureReason[] }> {
    return [...this.#armed].map(([phone, reasons]) => ({ phone, reasons: [...reasons] }));
  }

  /** Disarms a phone's failures (bound ones still strike), or every failure without a phone. */
  clear(phone?: string): void {
    if (phone !== undefined) {
      this.#armed.delete(phone);
      return;
    }
    this.#armed.clear();
    this.#bySms.clear();
  }
}
