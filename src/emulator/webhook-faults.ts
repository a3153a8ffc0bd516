import { z } from 'zod';

/**
 * Body of `POST /_emulator/webhook-faults`: the next `count` delivery attempts (to `url`, or to
 * any webhook) fail. `fail`: the request is not sent (logged `injected_failure`). `hang`: the
 * request is sent but its answer is ignored and the attempt times out, so the receiver sees the
 * same notification again on the retry.
 */
export const webhookFaultRequestSchema = z.object({
  count: z.number().int().positive(),
  mode: z.enum(['fail', 'hang']),
  url: z.string().optional(),
});
export type WebhookFault = z.infer<typeof webhookFaultRequestSchema>;

export class WebhookFaults {
  #faults: WebhookFault[] = [];

  add(fault: WebhookFault): void {
    this.#faults.push({ ...fault });
  }

  /** The fault mode striking an attempt to `url`, if any; consumes one injection. */
  take(url: string): WebhookFault['mode'] | undefined {
    const fault = this.#faults.find((f) => f.url === undefined || f.url === url);
    if (!fault) return undefined;
    fault.count -= 1;
    if (fault.count === 0) this.#faults = this.#faults.filter((f) => f !== fault);
    return fault.mode;
  }

  list(): WebhookFault[] {
    return this.#faults.map((fault) => ({ ...fault }));
  }

  clear(): void {
    this.#faults = [];
  }
}
