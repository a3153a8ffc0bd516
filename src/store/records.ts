/**
 * The records the store keeps. Every persisted shape carries `v`, its schema version, so a
 * later release can read or migrate what an earlier one wrote.
 */

/** A conversation is keyed by the location and the phone number (service form, digits only). */
export interface ConversationKey {
  location: string;
  phone: string;
}

/** Fields every mailbox event has. `id` is stable across redeliveries of the same notification. */
interface EventBase {
  v: 1;
  id: string;
  location: string;
  phone: string;
  /** When replyflow took the event in (ms since epoch, from the injected clock). */
  receivedAt: number;
}

/** A person's reply to the short code (an `sms.reply` data item). */
export interface ReplyEvent extends EventBase {
  kind: 'reply';
  body: string;
  originSmsId: string;
  /** The short code the reply was sent to. */
  to: string;
}

/** A delivery-status change of a message replyflow sent (an `sms.status` data item, or a send failure). */
export interface StatusEvent extends EventBase {
  kind: 'status';
  smsId: string;
  /** The outbox message this status is about, when known (send failures always know it). */
  outboxId?: string;
  /** The run that queued the message, when no message record exists (send failures). */
  runId?: string;
  status: 'pending' | 'sent' | 'delivered' | 'errored';
  statusReason: string;
}

/**
 * What became of a contact update a run queued (`updateContact`): the service took it
 * (`ok: true`), or it failed for good (`ok: false`, with the reason). Pushed with the update's
 * pop from the outbox, in one atomic call, so the run hears it exactly once.
 */
export interface ContactEvent extends EventBase {
  kind: 'contact';
  /** The run that queued the update. */
  runId: string;
  /** The outbox message of the update. */
  outboxId: string;
  /** The group it was for. */
  group: number;
  ok: boolean;
  /** Why it failed (the error's code and message); '' when it did not. */
  reason: string;
}

/** A request to start a bot's conversation with a phone (campaigns, CLI, tests). */
export interface StartEvent extends EventBase {
  kind: 'start';
  botId: string;
  input: unknown;
  /**
   * What the start does when the phone has an active conversation (the bot's `startPolicy`):
   * absent, it is dropped; `replace` ends the active one and starts; `queue` waits in the
   * active one's record and starts when it ends.
   */
  policy?: 'replace' | 'queue';
  /** The campaign recipient this start is for (src/campaigns/): its conversation carries it. */
  campaign?: CampaignStart;
}

/** A campaign recipient's start: which campaign and row, and where its record is kept. */
export interface CampaignStart {
  name: string;
  /** The recipient's row key (its phone). */
  row: string;
  chunk: number;
  /** The recipient's revision when it fired: a correction applies to that schedule only. */
  revision: number;
}

/** A durable timer that came due, moved into its conversation's mailbox by `claimDueTimers`. */
export interface TimerEvent extends EventBase {
  kind: 'timer';
  runId: string;
  /** The timer's id (`TimerRecord.id`). */
  timerId: string;
  /** The due time it was set for; the engine delivers it only if the run still holds this timer at this time. */
  dueAt: number;
  /** The event to give the machine (XState's delayed event, or `conversation.expire`). */
  event: { type: string; [key: string]: unknown };
}

/**
 * A durable timer: an XState delayed event (`after`, `raise(…, { delay })`) or a conversation's
 * expiry, with an absolute due time. Written and deleted by the step commits of its run; moved
 * into the mailbox when due. No process keeps a `setTimeout` per timer.
 */
export interface TimerRecord extends ConversationKey {
  v: 1;
  /** `${runId}:${sendId}`: unique, and the same when a step sets the timer again (it replaces it). */
  id: string;
  runId: string;
  /** XState's send id (`xstate.after.…`), or `replyflow.expire`. */
  sendId: string;
  dueAt: number;
  event: { type: string; [key: string]: unknown };
}

export type MailboxEvent = ReplyEvent | StatusEvent | StartEvent | TimerEvent | ContactEvent;

export type ConversationStatus = 'active' | 'done' | 'errored';

/** The one conversation slot of a (location, phone): the current or last run of a bot. */
export interface ConversationRecord extends ConversationKey {
  v: 1;
  /** Identifies this run; a new conversation with the same phone gets a new runId. */
  runId: string;
  botId: string;
  /** Hash of the bot's machine definition the snapshot was made with. */
  botVersion: string;
  status: ConversationStatus;
  /** XState persisted snapshot (`machine.getPersistedSnapshot`). */
  snapshot: unknown;
  /** Incremented by every commit; the fencing version. */
  seq: number;
  startedAt: number;
  updatedAt: number;
  /** Why the run ended, when it did (`final`, `endConversation`, `version_changed`, `BOT_THREW`…). */
  endedReason?: string;
  /** The run's live timers: timer id → due time. A timer event not found here is dropped. */
  timers?: Record<string, number>;
  /** Starts waiting for this run to end (`policy: 'queue'`), oldest first. */
  queued?: StartEvent[];
  /**
   * The phone opted out (and has not opted in since): no conversation starts for it. Written
   * with the store's suppression, in the same commit (`StepCommit.suppression`), which is what
   * the sender checks.
   */
  suppressed?: boolean;
  /** What the run recorded so far (`record({...})`): the fields of its result. */
  result?: Record<string, unknown>;
  /**
   * The campaign this run was started for, with what its funnel counted of it so far (`seen`:
   * `s` a message sent, `d` delivered, `a` answered, `e` ended), so each step counts once.
   */
  campaign?: { name: string; row: string; seen?: string };
}

/**
 * The result of one conversation (one run): who, which bot and version, when, how it ended, and
 * the fields its bot recorded. Written with the step that changed it; it outlives the
 * conversation and the phone's next conversations.
 */
export interface ConversationResult {
  v: 1;
  location: string;
  phone: string;
  runId: string;
  bot: string;
  botVersion: string;
  startedAt: number;
  /** Set once the conversation ended. */
  endedAt?: number;
  /** Why it ended (`final`, `endConversation`'s reason, `opted_out`, `expired`…). */
  endCode?: string;
  fields: Record<string, unknown>;
  /** The campaign it was started for, and the recipient's row key. */
  campaign?: { name: string; row: string };
}

/** An SMS the bot queued, waiting in its conversation's outbox until the sender sends it. */
export interface OutboundMessage extends ConversationKey {
  v: 1;
  /** Stable id: `${eventId}:${index}`; the "sent" guard is keyed by it. */
  id: string;
  runId: string;
  botId: string;
  body: string;
  queuedAt: number;
  /** Send attempts so far (transient failures). */
  attempts: number;
  /**
   * Set when a send of this message may have reached the service (its holder died mid-claim,
   * or the send failed ambiguously: a 5xx, a time-out) and no sms id was found for it: until
   * then, the service's status for that send can still arrive, and the next claim looks for it
   * before sending (DESIGN §2.4).
   */
  inDoubtUntil?: number;
  /**
   * When the doubt began (ms): the send that may have reached the service failed, or the outbox
   * was taken over. Its grace counts from the first answer of the service after this time, so
   * a service that does not answer for longer than the grace never gets the message twice.
   */
  inDoubtSince?: number;
  /**
   * A message the bot sent on its own (an API start, a timer, a campaign), not an answer to the
   * person: the location's quiet hours are checked again when it is sent, not only when queued,
   * and answers to people go before it.
   */
  botInitiated?: true;
  /**
   * A message of the compliance step. `opt-out` (the confirmation) is the only message a
   * suppressed phone may receive; `opt-out` and `help` are exempt from the loop guard.
   */
  compliance?: 'opt-out' | 'opt-in' | 'help';
  /** At most `max` messages to the phone per `windowMs` (the location's loop guard); past it, dropped. */
  loopGuard?: { max: number; windowMs: number };
  /** Quiet hours: not sent before this time (ms). The outbox waits for it, durably. */
  holdUntil?: number;
  /** Not an SMS: a contact to add or update in a group (`POST /groups/{group}/contacts`). */
  contact?: { group: number; fields: Record<string, unknown> };
}

/** Why the sender dropped a message instead of sending it. */
export type DropReason = 'suppressed' | 'loop_guard';

/**
 * A message dropped at send time. Its message record (`getMessage(phone, droppedSmsId(id))`)
 * says so too: status `errored`, `statusReason` the reason.
 */
export interface DroppedMessage {
  /** The outbox message id. */
  id: string;
  reason: DropReason;
  botId?: string;
}

/** The message record id of a dropped outbox message (it never got an sms id). */
export const droppedSmsId = (outboxId: string) => `dropped:${outboxId}`;

/** The message record id of an outbox message whose send failed for good (`failOutbound`). */
export const failedSmsId = (outboxId: string) => `failed:${outboxId}`;

/** What replyflow knows of one SMS the service accepted, keyed by the service's sms id. */
export interface MessageRecord extends ConversationKey {
  v: 1;
  smsId: string;
  status: 'pending' | 'sent' | 'delivered' | 'errored';
  statusReason: string;
  runId?: string;
  botId?: string;
  outboxId?: string;
  /** The text's encoding as sent (a GSM-7 text costs 160 characters a part, UCS-2 70). */
  encoding?: 'GSM-7' | 'UCS-2';
  parts?: number;
  price?: number;
  createdAt?: string;
  updatedAt?: string;
}

/** How far along a status is; a record only moves to a higher rank (a late `sent` never undoes `delivered`). */
export const statusRank: Record<MessageRecord['status'], number> = {
  pending: 0,
  sent: 1,
  delivered: 2,
  errored: 2,
};

/** A notification (or part of one) that could not be used, kept for inspection. */
export interface DeadLetter {
  v: 1;
  at: number;
  reason: string;
  /** The raw body, truncated to a few kB. */
  body: string;
  location?: string;
}
