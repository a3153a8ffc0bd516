import { z } from 'zod';
import type { Reply } from '../provider/schemas/reply.ts';
import { apiErrorCodes, EmulatorApiError } from './emulator-api-error.ts';
import type { EventStream } from './event-stream.ts';
import { type MessageStore, type StoredSms, toServiceSms } from './message-store.ts';
import type { WebhookDispatcher } from './webhook-dispatcher.ts';

/** Body of `POST /_emulator/replies`: the handset `from` answers with `body`. */
export const simulateReplyRequestSchema = z.object({
  from: z.string().regex(/^\d+$/, 'digits with the country prefix, as in `to` of POST /sms'),
  body: z.string(),
  location: z.string().min(1).optional(),
  originSmsId: z.string().min(1).optional(),
});
export type SimulateReplyRequest = z.infer<typeof simulateReplyRequestSchema>;

export type ReplyResult =
  | { notified: true; reply: Reply; location: string }
  | { notified: false; reason: string };

export interface SimulateReplyDeps {
  shortCode: string;
  messages: MessageStore;
  dispatcher: WebhookDispatcher;
  events: EventStream;
}

/** Statuses of a message that reached the handset's network, so the handset can answer it. */
const reachable = new Set(['sent', 'delivered']);

/**
 * A handset replies to the short code (spec §1.2, §6). The reply is correlated with the last
 * message that reached this phone from the short code, or with `originSmsId`. Only a message
 * sent from the short code (empty `from`) can be replied to; the service then sends `sms.reply`
 * to the origin's location, with the origin as `originSms` in status `received`.
 */
export function simulateReply(deps: SimulateReplyDeps, request: SimulateReplyRequest): ReplyResult {
  const origin = findOrigin(deps.messages, request);
  if (origin.from !== '') {
    return {
      notified: false,
      reason: `message ${origin.id} was sent from '${origin.from}', not from the short code; replies to it never reach the service`,
    };
  }
  const reply: Reply = {
    originSms: { ...toServiceSms(origin), status: 'received' },
    body: request.body,
    from: request.from,
    to: deps.shortCode,
  };
  deps.events.publish('reply', { ...reply, location: origin.location });
  deps.dispatcher.notify(origin.location, 'sms.reply', [reply]);
  return { notified: true, reply, location: origin.location };
}

function findOrigin(messages: MessageStore, request: SimulateReplyRequest): StoredSms {
  const received = messages
    .list({ to: request.from, location: request.location })
    .filter((sms) => reachable.has(sms.status));
  if (request.originSmsId !== undefined) {
    const named = received.find((sms) => sms.id === request.originSmsId);
    if (!named) {
      throw noOrigin(
        `no message ${request.originSmsId} has reached ${request.from}${inLocation(request)} (it must be sent or delivered to that number)`,
      );
    }
    return named;
  }
  const fromShortCode = received.filter((sms) => sms.from === '');
  const origin = fromShortCode.at(-1) ?? received.at(-1);
  if (!origin) {
    throw noOrigin(
      `no message has reached ${request.from}${inLocation(request)} yet: send one with POST /v1/sms and wait until it is sent`,
    );
  }
  return origin;
}

function inLocation(request: SimulateReplyRequest): string {
  return request.location === undefined ? '' : ` in location '${request.location}'`;
}

function noOrigin(message: string): EmulatorApiError {
  return new EmulatorApiError(404, apiErrorCodes.NOT_FOUND, message);
}
