import { z } from 'zod';
import type { Notification } from '../provider/schemas/notification.ts';
import type { IngestItem } from '../store/store.ts';

const phone = z
  .string()
  .transform((value) => value.replace(/^\+/, ''))
  .pipe(z.string().regex(/^\d{6,15}$/, { error: 'must be digits with the country prefix' }));

/** Lenient on purpose: only the fields replyflow uses are required, so a richer payload still works. */
const replyItemSchema = z.object({
  originSms: z.object({ id: z.string().min(1).max(200) }),
  body: z.string().max(10_000),
  from: phone,
  to: z.string().max(50).default(''),
});

const statusItemSchema = z.object({
  id: z.string().min(1).max(200),
  to: phone,
  status: z.enum(['pending', 'sent', 'delivered', 'errored']),
  statusReason: z.string().max(200).default(''),
  price: z.number().finite().nonnegative().optional(),
  parts: z.number().int().nonnegative().optional(),
  createdAt: z.string().max(64).optional(),
  updatedAt: z.string().max(64).optional(),
  // Optional: it only helps a takeover find a send its dead sender never recorded.
  body: z.string().max(10_000).optional(),
});

export interface Classified {
  items: IngestItem[];
  rejected: Array<{ index: number; reason: string }>;
}

/**
 * Turns a notification's data items into mailbox events. An item is a reply when it has
 * `originSms`, whatever the envelope's `type` says (the service's own sample reply carries
 * `type: "sms.status"`); otherwise it is a status. Event ids are `${notification.id}:${index}`,
 * so a redelivered notification yields the same ids.
 */
export function classifyItems(
  notification: Notification,
  location: string,
  now: number,
): Classified {
  const result: Classified = { items: [], rejected: [] };
  notification.data.forEach((raw, index) => {
    const item = classifyItem(raw, `${notification.id}:${index}`, location, now);
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
): IngestItem | string {
  const base = { v: 1 as const, id, location, receivedAt: now };
  if (typeof raw === 'object' && raw !== null && 'originSms' in raw) {
    const parsed = replyItemSchema.safeParse(raw);
    if (!parsed.success) return `reply: ${describe(parsed.error)}`;
    const reply = parsed.data;
    return {
      event: {
        ...base,
        kind: 'reply',
        phone: reply.from,
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
