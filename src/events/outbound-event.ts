/**
 * An event a conversation sends to the systems that asked (issue 24): queued in the step's
 * commit, delivered at least once with the same `id` (receivers dedupe by it), signed as the
 * Standard Webhooks specification says.
 */

/** The event types replyflow emits itself; a bot's own (`notify`) are any other dotted name. */
export const builtInEventTypes = [
  'conversation.started',
  'conversation.ended',
  'result.recorded',
  'optout',
  'optin',
] as const;
export type BuiltInEventType = (typeof builtInEventTypes)[number];

/** What a receiver gets as the JSON body (and what the outbox keeps until it is delivered). */
export interface OutboundEvent {
  /** Unique and stable: `evt_` + the step's event id + its index in the step. The `webhook-id`. */
  id: string;
  /** `conversation.ended`, `appointment.rescheduled`… */
  type: string;
  /** When the step that emitted it ran (ISO 8601). */
  timestamp: string;
  data: {
    location: string;
    bot: string;
    botVersion: string;
    runId: string;
    /** The full number (the receiver is the customer's own system), E.164 digits. */
    phone: string;
    /** The number as logs show it. */
    maskedPhone: string;
    /** The type's own fields: the end code and result for `conversation.ended`, a bot's payload… */
    payload: Record<string, unknown>;
  };
}

/** Where a location's events go (config file `events`, or REPLYFLOW_EVENTS_URL / _SECRET). */
export interface EventSubscription {
  url: string;
  /** `whsec_` + base64 of 24–64 random bytes (Standard Webhooks). */
  secret: string;
  /** The types it receives; every type when absent. */
  types?: string[];
  /** Deliver to private, loopback and link-local addresses (dev, tests); refused otherwise. */
  allowPrivateAddresses?: boolean;
  /** How long a failing delivery is retried before it is a dead letter (`24h`, `3d`; 24h when absent). */
  retryFor?: string;
}

/** What one delivery attempt came to. */
export interface DeliveryAttempt {
  ok: boolean;
  /** The receiver's HTTP status, when it answered. */
  status?: number;
  /** Why it failed: `timeout`, `refused_private_address`, `connect_error`, `http_500`… */
  error?: string;
  /** False when trying again cannot help (a refused address, 4xx other than 408/409/425/429). */
  retryable: boolean;
  /** A `Retry-After` the receiver asked for, in ms. */
  retryAfterMs?: number;
  durationMs: number;
}
