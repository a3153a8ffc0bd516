/**
 * The retention limits both drivers share, so the contract suite can hold them to the same
 * numbers. Nothing the store writes is kept forever (DESIGN §2.7): what is not listed here
 * follows the retention (`StoreRetention`), or is a documented global key (src/store/README.md).
 */
export const storeLimits = {
  /** How long the "sent" guard of an outbox message keeps its sms id (the memory store's). */
  sentGuardTtlMs: 7 * 24 * 3_600_000,
  /**
   * Message records a conversation's value keeps (on Redis), the latest: their records are
   * its messages' "sent" guards, and what the statuses and replies of an idle conversation
   * look up. Older ones move to keys of their own.
   */
  messagesInRecord: 3,
  /**
   * How long the status events of an sms wait for `recordSent` (a status notification can
   * overtake the answer to POST /sms by a second or so; a takeover looks for them after a lease
   * and the in-doubt grace), and how long the body → sms id of such a status is kept. A send
   * never recorded leaves them to expire.
   */
  earlyStatusTtlMs: 3_600_000,
  /** Status events kept per sms waiting for `recordSent` (the service sends three at most). */
  earlyStatusCap: 20,
  /** Bodies kept per conversation in the unrecorded sends (statuses of sms nobody recorded). */
  unrecordedCap: 100,
  /**
   * How long the message record made by a status of an sms replyflow did not send (yet) is
   * kept: a dashboard campaign on the same location, or a forged notification, never fills the
   * store. `recordSent` gives a real one the retention.
   */
  unknownMessageTtlMs: 3_600_000,
  /** Such records kept per partition; past it, the oldest go. */
  unknownMessagesCap: 1_000,
  /** Head messages one outbox view may drop before it answers with no message (its caller comes back). */
  dropsPerView: 50,
  /**
   * Applied event ids kept per conversation: the log knows a redelivered event once applied
   * (ingest), and serves inspection, tests and start keys.
   */
  appliedLogCap: 32,
  /**
   * The applied log starts again when its last entry is older than this. The service's
   * redeliveries (10 retries with exponential backoff; the emulator's 1 s × 2^n add up to 17
   * minutes) all come within it, by a wide margin.
   */
  appliedWindowMs: 24 * 3_600_000,
  /** Dead letters kept in all. */
  deadLetterCap: 1_000,
  /**
   * Answers first: an outbox waiting with bot-initiated messages only sits in its partition's
   * ready set at this much after its ready time, behind every answer and lease (src/store/README.md,
   * "Answers first"). 2^43 ms, about 278 years: the sum stays an exact whole number of ms.
   */
  botBandMs: 2 ** 43,
  /**
   * Messages a conversation's transcript keeps, the latest (in its value on Redis): the
   * operator's page of a conversation. An older one goes when a new one comes.
   */
  transcriptEntries: 200,
} as const;

/** How long what outlives a conversation is kept (`REPLYFLOW_RETENTION`, `REPLYFLOW_RESULTS_RETENTION`). */
export interface StoreRetention {
  /**
   * An ended conversation's record, and every message record (counted from its last write;
   * the records of a dropped message too). Default 30 days.
   */
  conversationsMs: number;
  /** A conversation's result, counted from its last write. Default: `conversationsMs`. */
  resultsMs: number;
}

/** 30 days, the default of `REPLYFLOW_RETENTION`. */
export const defaultRetentionMs = 30 * 24 * 3_600_000;

/** The retention with its defaults filled in. */
export function storeRetention(given: Partial<StoreRetention> = {}): StoreRetention {
  const conversationsMs = given.conversationsMs ?? defaultRetentionMs;
  return { conversationsMs, resultsMs: given.resultsMs ?? conversationsMs };
}
