import { z } from 'zod';

export const webhookEventSchema = z.enum(['sms.status', 'sms.reply']);
export type WebhookEvent = z.infer<typeof webhookEventSchema>;

/** Body of `POST /webhooks` (spec §2.6). */
export const registerWebhookRequestSchema = z.object({
  url: z.url({ protocol: /^https?$/ }),
  events: z.array(webhookEventSchema).min(1),
});
export type RegisterWebhookRequest = z.infer<typeof registerWebhookRequestSchema>;

/**
 * A webhook record. The spec does not show the returned fields; `{ id, url, events }` is our
 * documented assumption, and the emulator returns exactly that.
 */
export const webhookSchema = registerWebhookRequestSchema.extend({ id: z.string().min(1) });
export type Webhook = z.infer<typeof webhookSchema>;
