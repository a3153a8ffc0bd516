import { z } from 'zod';

/** SMS states (spec §3). `received` only appears on `originSms` inside a reply. */
export const smsStatusSchema = z.enum(['pending', 'sent', 'delivered', 'errored', 'received']);
export type SmsStatus = z.infer<typeof smsStatusSchema>;

/** Known `statusReason` values (spec §2.1); the service may add others, so any string passes. */
export const knownStatusReasons = [
  '',
  'DELIVRD',
  'EXPIRED',
  'insufficient_balance',
  'invalid_phone_number',
] as const;

const isoTimestamp = z.iso.datetime({ offset: true });

/** Body of `POST /sms` (spec §4). Which fields are required is not shown; we require all five. */
export const sendSmsRequestSchema = z.object({
  from: z.string(),
  to: z.string().min(1),
  body: z.string(),
  shortenUrls: z.boolean(),
  isTransactional: z.boolean(),
});
export type SendSmsRequest = z.infer<typeof sendSmsRequestSchema>;

/**
 * `POST /sms` as the emulator accepts it: `to` and `body` are required, `from` defaults to ''
 * (the short code) and the two flags to false. Our documented assumption where the spec is
 * silent; the client still sends all five fields.
 */
export const sendSmsRequestWithDefaultsSchema = sendSmsRequestSchema.extend({
  from: sendSmsRequestSchema.shape.from.default(''),
  shortenUrls: sendSmsRequestSchema.shape.shortenUrls.default(false),
  isTransactional: sendSmsRequestSchema.shape.isTransactional.default(false),
});

/** The SMS object (spec §2.1), as returned by `POST /sms`, `GET /sms/{id}` and in webhooks. */
export const smsSchema = sendSmsRequestSchema.extend({
  id: z.string().min(1),
  status: smsStatusSchema,
  statusReason: z.string(),
  createdAt: isoTimestamp.optional(),
  updatedAt: isoTimestamp.optional(),
  price: z.number().nonnegative().optional(),
  parts: z.number().int().nonnegative().optional(),
});
export type Sms = z.infer<typeof smsSchema>;

/** The SMS object as it appears in webhook payloads, where price and parts are always present. */
export const notifiedSmsSchema = smsSchema.required({
  createdAt: true,
  updatedAt: true,
  price: true,
  parts: true,
});
export type NotifiedSms = z.infer<typeof notifiedSmsSchema>;
