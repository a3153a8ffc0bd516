/**
 * The events a bot's machine receives. Declare them in `setup({ types: { events: {} as BotEvent } })`
 * to get them typed in guards and actions.
 */

/** A person replied to the short code. */
export interface SmsReplyEvent {
  type: 'sms.reply';
  /** Text of the reply. */
  body: string;
  /** The person's number, digits with country prefix (`33612345678`). */
  from: string;
  /** When replyflow received it, ISO 8601 UTC. */
  receivedAt: string;
  /** The id of the message the person answered. */
  originSmsId: string;
}

/** A message this conversation sent changed status (spec §3), or could not be sent (`send_failed`). */
export interface SmsStatusEvent {
  type: 'sms.status';
  status: 'sent' | 'delivered' | 'errored';
  /** `DELIVRD`, `EXPIRED`, `insufficient_balance`, `invalid_phone_number`, `send_failed`, or ''. */
  statusReason: string;
  /** The service's id of the message. */
  smsId: string;
}

/** The person's message that started a conversation by keyword (or reached the fallback bot). */
export interface ConversationTrigger {
  /** Text of the message, as the person wrote it. */
  body: string;
  /** The person's number, digits with country prefix (`33612345678`). */
  from: string;
  /** When replyflow received it, ISO 8601 UTC. */
  receivedAt: string;
  /** The id of the short-code message the person answered. */
  originSmsId: string;
}

/**
 * The conversation starts. Started by the API (a campaign, the CLI, a test), it carries that
 * start's `input` and no `trigger`. Started by a keyword (or by the fallback bot), it carries
 * the person's message as `trigger`: that message is never delivered again as an `sms.reply`.
 */
export interface ConversationStartEvent<TInput = unknown> {
  type: 'conversation.start';
  input: TInput;
  /**
   * When the start was received, ISO 8601 UTC (the engine's clock): what a bot computes its
   * delays from (`setup({ delays: { remind: ({ context }) => … } })`).
   */
  receivedAt: string;
  trigger?: ConversationTrigger;
}

/**
 * The conversation saw no activity for its bot's `expiresAfter` (default 7 days). The machine may
 * still `reply`; the conversation ends after this step whatever it does.
 */
export interface ConversationExpireEvent {
  type: 'conversation.expire';
}

/**
 * A contact update this conversation queued (`updateContact`) was taken by the service: the
 * contact is in the group. Comes after the step that queued it, once the update went through.
 */
export interface ContactUpdatedEvent {
  type: 'contact.updated';
  /** The group the contact was added to or updated in. */
  group: number;
}

/**
 * A contact update this conversation queued could not be made, for good (the group does not
 * exist, a field the service refuses, retries spent): `reason` says why.
 */
export interface ContactFailedEvent {
  type: 'contact.failed';
  group: number;
  /**
   * Why: the error's code and message (`INVALID_CONTACT: … takes a string`, a group the service
   * does not know), or the last transient one when retries outlasted the send deadline.
   */
  reason: string;
}

export type BotEvent<TInput = unknown> =
  | SmsReplyEvent
  | SmsStatusEvent
  | ConversationStartEvent<TInput>
  | ConversationExpireEvent
  | ContactUpdatedEvent
  | ContactFailedEvent;

/** What a machine's `input` holds when replyflow creates a conversation. */
export interface BotInput<TInput = unknown> {
  location: string;
  phone: string;
  /** The start input: `conversation.start`'s input, or `{ keyword }` when a keyword started it. */
  input: TInput;
  /**
   * The location's contacts group (`compliance.group` in its configuration), when it has one:
   * where an opt-in's `updateContact` writes, unless the start input names another.
   */
  contactGroup?: number;
}
