import { z } from 'zod';
import type { Notification } from '../provider/schemas/notification.ts';
import type { IngestItem } from '../store/store.ts';
import { normalizeReplyPhone } from './normalize-reply-phone.ts';

const phone = z
  .string()
  .transform((value) => value.replace(/^\+/, ''))
  .pipe(z.string().regex(/^\d{6,15}$/, { error: 'must be digits with the country prefix' }));

/**
 * A lone UTF-16 surrogate (`"\ud800"` in the JSON) is no text: the store's JSON decoder
 * refuses it, which would answer 503 for ever. Ids with one are refused, and texts get U+FFFD.
 */
const loneSurrogate = /\p{Cs}/gu;
const id = z
  .string()
  .min(1)
  .max(200)
  .refine((value) => !/\p{Cs}/u.test(value), { error: 'must be well-formed text' });
const text = (max: number) =>
  z
    .string()
    .max(max)
    .transform((value) => value.replace(loneSurrogate, '\uFFFD'));

/** Lenient on purpose: only the fields replyflow uses are required, so a richer payload still works. */
const replyItemSchema = z.object({
  originSms: z.object({ id }),
  body: text(10_000),
  // Any written form: it is normalised below, as sends are, before it keys a conversation.
  from: z.string().max(50),
  to: text(50).default(''),
});

const statusItemSchema = z.object({
  id,
  to: phone,
  status: z.enum(['pending', 'sent', 'delivered', 'errored']),
  statusReason: text(200).default(''),
  price: z.number().finite().nonnegative().optional(),
  parts: z.number().int().nonnegative().optional(),
  createdAt: text(64).optional(),
  updatedAt: text(64).optional(),
  // Optional: it only helps a takeover find a send its dead sender never recorded.
  body: text(10_000).optional(),
});

export interface Classified {
  items: IngestItem[];
  rejected: Array<{ index: number; reason: string }>;
}

/**
 * Turns a notification's data items into mailbox events. An item is a reply when it has
 * `originSms`, whatever the envelope's `type` says (the service's own sample reply carries
 * `type: "sms.status"`); otherwise it is a status. Event ids are `${notification.id}:${index}`,
 * so a redelivered notification yields the same ids. A reply's `from` is normalised with the
 * location's `defaultCountry`; one that cannot be is rejected with its reason.
 */
export function classifyItems(
  notification: Notification,
  location: string,
  now: number,
  defaultCountry?: string,
): Classified {
  const result: Classified = { items: [], rejected: [] };
  notification.data.forEach((raw, index) => {
    const item = classifyItem(raw, `${notification.id}:${index}`, location, now, defaultCountry);
    if (typeof item === 'string') result.rejected.push({ index, reason: item });
    else result.items.push(item);
  });
  return result;
}

/** One data item as an ingest item, or the reason it cannot be used. */
function classifyItem(
  raw: unknown,
  id: string,
  location: string,
  now: number,
  defaultCountry: string | undefined,
): IngestItem | string {
  const base = { v: 1 as const, id, location, receivedAt: now };
  if (typeof raw === 'object' && raw !== null && 'originSms' in raw) {
    const parsed = replyItemSchema.safeParse(raw);
    if (!parsed.success) return `reply: ${describe(parsed.error)}`;
    const reply = parsed.data;
    const from = normalizeReplyPhone(reply.from, defaultCountry);
    if ('reason' in from) return `reply: ${from.reason}`;
    return {
      event: {
        ...base,
        kind: 'reply',
        phone: from.phone,
        body: reply.body,
        originSmsId: reply.originSms.id,
        to: reply.to,
      },
    };
  }
  const parsed = statusItemSchema.safeParse(raw);
  if (!parsed.success) return `status: ${describe(parsed.error)}`;
  const {
    id: smsId,
    to,
    status,
    statusReason,
    parts,
    price,
    createdAt,
    updatedAt,
    body,
  } = parsed.data;
  return {
    event: { ...base, kind: 'status', phone: to, smsId, status, statusReason },
    status: { status, statusReason, parts, price, createdAt, updatedAt },
    ...(body !== undefined && { body }),
  };
}

/** A short, readable account of what is wrong, naming the fields. */
export function describe(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}
