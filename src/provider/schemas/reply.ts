import { z } from 'zod';
import { notifiedSmsSchema } from './sms.ts';

/** A reply object inside an `sms.reply` notification (spec §2.2). */
export const replySchema = z.object({
  originSms: notifiedSmsSchema.extend({ status: z.literal('received') }),
  body: z.string(),
  from: z.string().min(1),
  to: z.string(),
});
export type Reply = z.infer<typeof replySchema>;
