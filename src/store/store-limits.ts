/**
 * The retention limits both drivers share, so the contract suite can hold them to the same
 * numbers. The 7 days of the seen and sent keys outlast the service's redelivery window
 * (10 retries with exponential backoff) by a wide margin.
 */
export const storeLimits = {
  /** How long a notification id stays known after its first ingest. */
  seenTtlMs: 7 * 24 * 3_600_000,
  /** How long the "sent" guard of an outbox message keeps its sms id. */
  sentGuardTtlMs: 7 * 24 * 3_600_000,
  /**
   * How long the status events of an sms wait for `recordSent` (a status notification can
   * overtake the answer to POST /sms); a send never recorded leaves them to expire.
   */
  earlyStatusTtlMs: 7 * 24 * 3_600_000,
  /** How long the message record of a message dropped at send time (suppressed, loop guard) is kept. */
  droppedRecordTtlMs: 30 * 24 * 3_600_000,
  /** Head messages one outbox view may drop before it answers with no message (its caller comes back). */
  dropsPerView: 50,
  /** Applied event ids kept per conversation (the log is for inspection and tests). */
  appliedLogCap: 1_000,
  /** Dead letters kept in all. */
  deadLetterCap: 1_000,
} as const;
