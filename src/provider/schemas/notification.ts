import { z } from 'zod';

/**
 * The notification envelope posted to a webhook URL (spec §2.7). `data` is left loose here:
 * each item is classified by its shape (`originSms` present means a reply), never by `type`,
 * because the service's own sample reply carries `type: "sms.status"`.
 */
export const notificationSchema = z.object({
  // It keys the notification's events in the store: well-formed text of bounded length (a lone
  // surrogate would be refused by Redis's JSON decoder on every retry).
  id: z
    .string()
    .min(1)
    .max(200)
    .refine((value) => !/\p{Cs}/u.test(value), { error: 'must be well-formed text' }),
  webhookId: z.string(),
  type: z.string(),
  // The service sends one item per notification in every sample; 500 leaves room and caps
  // the work one request can cause.
  data: z.array(z.unknown()).max(500),
});
export type Notification = z.infer<typeof notificationSchema>;
