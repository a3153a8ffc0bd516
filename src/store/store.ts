import type { OutboundEvent } from '../events/outbound-event.ts';
import type { CampaignStore } from './campaign-store.ts';
import type { EventOutbox } from './event-outbox.ts';
import type {
  CampaignStart,
  ContactEvent,
  ConversationKey,
  ConversationRecord,
  ConversationResult,
  DeadLetter,
  DroppedMessage,
  MailboxEvent,
  MessageRecord,
  OutboundMessage,
  ReplyEvent,
  StatusEvent,
  TimerRecord,
} from './records.ts';
import type { StoreSample } from './store-sample.ts';
import type { Suppression, SuppressionEntry, SuppressionsAdded } from './suppression.ts';
import type { Transcript } from './transcript.ts';

/** What a deferral may write on the head message (`OutboundMessage`'s fields of the same names). */
export type OutboundMarks = Partial<
  Pick<OutboundMessage, 'inDoubtUntil' | 'inDoubtSince' | 'holdUntil'>
>;

/**
 * The storage port of the engine, the webhook route and the sender. Two drivers implement it:
 * `redis/` (production) and `memory/` (the embedded default); one contract suite
 * (`test/integration/store/store-contract.ts`) runs against both.
 *
 * Work is organised as two lease queues, `inbox` (mailboxes of events) and `outbox` (messages
 * to send), each with one list per conversation and a ready set per partition. A conversation
 * belongs to partition `partitionOf(phone)`; every operation below touches one partition, so on
 * Redis every Lua call touches one hash slot.
 *
 * Every method may reject with `StoreUnavailableError` when the backend cannot be reached.
 */
export interface Store extends CampaignStore, EventOutbox {
  /** Number of partitions of the shared structures. */
  readonly partitions: number;

  /** The partition of a phone number (stable for the life of the data). */
  partitionOf(phone: string): number;

  /**
   * Takes in one notification. Per partition touched, atomically: skip each event already
   * taken in (waiting in its conversation's mailbox, or in its recent applied log: the last
   * `storeLimits.appliedLogCap` events of the last `appliedWindowMs`, which covers the service's
   * redeliveries; no id is kept per notification); for status items, move the message
   * record forward (never back: see `statusRank`) and push the event only when it moved and
   * `recordSent` has already recorded the sms. A status that moved the record of an sms not yet
   * recorded as sent (it overtook the answer to POST /sms) is not pushed: it waits, in arrival
   * order, in the sms's early statuses (kept an hour, capped) until `recordSent` moves it into the
   * mailbox with the run that sent it. Push every other event onto its conversation's mailbox
   * (in array order) and mark the conversation ready. `pushed` counts only what went onto
   * mailboxes. A status item kept waiting that carries `body` also records body → sms id in
   * the conversation's unrecorded sends (an hour, capped), where a takeover looks for the send a dead
   * sender never recorded (see `claim`). When that status is of the send of a head in doubt
   * (its outbox's head has the same body and `inDoubtSince` or `inDoubtUntil`), the time is
   * also kept for the location (`inDoubtHeardAt`): the service is still reporting sends in
   * doubt. All partitions go in ONE round trip. Resolves only once durable.
   *
   * `onReady` hears of the partition when the call made a conversation ready and left it to any
   * worker, unless other conversations were already due there: those were announced when they
   * became ready, and a backlog needs no more (a lane keeps claiming there until a claim finds nothing).
   *
   * With `claimFor`, a conversation this call made ready (nobody held it, nothing waited) and
   * that has no lock is also claimed, up to `claimFor.max` of them, as `claim('inbox', …)`
   * would but without announcing it, and answered in `claims` with its first view: the web
   * role hands them to the worker of its own process, saving that worker a claim per turn.
   */
  ingest(
    notificationId: string,
    items: IngestItem[],
    now: number,
    claimFor?: { leaseMs: number; max: number },
  ): Promise<IngestResult>;

  /**
   * Takes a ready conversation of `queue` in `partition` whose ready time has come, locks it
   * with a fresh token for `leaseMs`, and hides it from other claimers for that long. A
   * claimer that dies loses the lock when the lease runs out; the conversation is then
   * claimable again. Resolves null when nothing is ready.
   *
   * The claim comes with `view`, read in the same atomic call right after the lock was taken:
   * for `inbox` the `InboxView` that `readInbox(claim)` would then return, for `outbox` the
   * `OutboxView` of `readOutbox(claim)`. A worker or sender starts from it without another
   * round trip. `view` is a snapshot: pass the claim on as a plain `Claim` (the other methods
   * ignore `view`).
   *
   * An outbox lock lasts until it is released (or deferred, or taken over), not until its
   * lease ends: a claim that takes an outbox over from a holder that died mid-claim says so
   * with `view.takenOver`. Its head may have been sent and never recorded, so when the head
   * is in doubt (taken over, or `inDoubtUntil` set) and has no "sent" guard, the claim looks
   * its body up in the conversation's unrecorded sends (see `ingest`) and answers the sms id
   * found there, unless recorded since, as `sentSmsId`.
   */
  claim<Q extends QueueName>(
    queue: Q,
    partition: number,
    leaseMs: number,
    now: number,
  ): Promise<ClaimWithView<Q> | null>;

  /**
   * Claims up to `max` ready conversations of `queue` in `partition` at once, ready longest
   * first, each as `claim` would (its own token, its first view). Resolves `[]` when nothing is
   * ready. A consumer whose lanes are behind takes several claims in one round trip.
   *
   * Answers first (outbox): an outbox holding bot-initiated messages only (`botInitiated`) is
   * claimed after every other ready one, whenever it became ready; `answersOnly` leaves those
   * alone (src/store/README.md, "Answers first"). `claim` and the inbox have one order.
   */
  claimMany<Q extends QueueName>(
    queue: Q,
    partition: number,
    leaseMs: number,
    now: number,
    max: number,
    options?: { answersOnly?: boolean },
  ): Promise<ClaimWithView<Q>[]>;

  /**
   * The earliest ready time among `queue`'s conversations in `partition`, claimed ones included
   * (their ready time is their lease's end), or null when the partition has none. A consumer
   * that was told of no work sleeps until then: it is when a lease nobody releases (its holder
   * died) or a deferral made elsewhere becomes claimable, unannounced.
   */
  nextReadyAt(queue: QueueName, partition: number): Promise<number | null>;

  /** Releases a claim: the lock is deleted (compare-and-delete on the token), and the
   * conversation stays ready if its list is not empty (at `notBefore` when given). */
  release(claim: Claim, now: number, notBefore?: number): Promise<void>;

  /** Reads, under a claim, the conversation record and the first event of its mailbox. */
  readInbox(claim: Claim): Promise<InboxView>;

  /**
   * Commits one step atomically: fails with `lost-lock` unless the claim's token still holds
   * the lock; with `stale` unless the mailbox head is `eventId` and the record's seq is
   * `expectedSeq` (0 when there is no record). Then: write `record` (when given), pop the head,
   * append `outbound` to the outbox and mark it ready, record `eventId` as applied, and extend
   * the lease. Returns the view of the next event, so a drain loop needs one call per event.
   * When the pop left the mailbox empty, the claim is released in the same call, as
   * `release(claim, now)` would, instead of extended, and the answer says `released: true`:
   * the drain is over without another round trip (an event ingested after it makes the
   * conversation ready again, as after any release).
   */
  commitStep(claim: Claim, step: StepCommit, now: number): Promise<CommitResult>;

  /**
   * A direct turn's view (docs/architecture.md, "The direct turn"): the record of `key`'s conversation and
   * the record of the message `originSmsId` names (when replyflow sent it), read in one round
   * trip under no claim, for a step the web role runs in the request itself. Resolves null when
   * the conversation is busy: a worker holds it, or events wait in its mailbox (those go first,
   * so the event goes through the mailbox as well). A store may answer from what it already
   * knows of the conversation, busy or not: `commitDirect` checks both that nobody holds it and
   * that it is still the conversation the view showed, and refuses otherwise.
   *
   * With `statusRank` (the direct turn of a status of sms `originSmsId`, `statusRank` its
   * status's rank): null unless `commitDirect` can move that message's record with the step
   * (the record is in the conversation's value, recorded as sent, at a lower rank); any other
   * status goes through `ingest`, which moves records forward only. A store may answer it from
   * what it already knows, busy or not (`commitDirect` checks both), and a store with no
   * direct path for statuses answers null.
   */
  peekConversation(
    key: ConversationKey,
    originSmsId?: string,
    statusRank?: number,
  ): Promise<DirectView | null>;

  /**
   * Commits the step of `event`, a reply that never went onto a mailbox (a direct turn: the
   * notification is answered once this resolved, so a failure before leaves the service to
   * deliver it again). Atomically: `busy` unless nobody holds the conversation and its mailbox
   * is empty; `duplicate` when its recent applied log has `event.id` (an earlier delivery's turn
   * was committed); `stale` unless the record's seq is `step.expectedSeq` (or, after a view the
   * store answered from what it knew, when the conversation moved since); `suppressed` as for
   * `commitStep`. Then everything `commitStep` writes (record, transcript, outbox and its claim
   * with `claimOutbox`, timers, applied log, results, counters, events, suppression), with
   * nothing popped and no claim to extend or release. Refused outcomes change nothing.
   *
   * For a status (`event` a status, `status` its record fields, after a `peekConversation`
   * with its rank): its message's record moves to the status as `ingest` moves it, in the same
   * write; nothing is logged (a status's rank is its dedupe: a redelivery no longer moves the
   * record). `busy` for anything it cannot commit so (the value moved since the peek): the
   * status then goes through `ingest`.
   */
  commitDirect(
    event: ReplyEvent | StatusEvent,
    step: StepCommit,
    now: number,
    status?: IngestItem['status'],
  ): Promise<DirectCommitResult>;

  /** Reads, under an outbox claim, the first message and, when the "sent" guard already
   * holds an sms id for it, that id (the message must not be sent again). Like every outbox
   * view, it first drops the head messages that must not be sent at `now` (see `OutboxView`).
   *
   * With `renewLeaseMs` (the sender's last look before `POST /sms`), the same atomic call first
   * checks that the claim still holds the outbox and pushes its lease to `now + renewLeaseMs`:
   * a claim another one took over meanwhile gets `{ message: null, sentSmsId: null, lostLock:
   * true }`, and nothing is read or dropped. So a request only ever starts under a live claim,
   * with a whole lease before it. The head it answers is no longer in doubt (`inDoubtSince`
   * and `inDoubtUntil` go, in the store too): it is being sent now, and a status of this send
   * is not one of a send in doubt (see `ingest`).
   *
   * `expected`, with `renewLeaseMs`: the message the caller holds and is about to send. A
   * driver may then answer `{ message: expected, sentSmsId: null }` from a cheaper look when
   * the claim still holds the outbox, its lease renewed, and `expected` is still its head, to
   * be sent as it is (nothing to drop, move or clear); in every other case it answers as
   * without it. */
  readOutbox(
    claim: Claim,
    now: number,
    renewLeaseMs?: number,
    expected?: OutboundMessage,
  ): Promise<OutboxView>;

  /**
   * Pushes the lease of an outbox claim still held to `now + leaseMs` (the sender, while a
   * request of its is in flight, so that no other claim takes the outbox over from a live
   * holder). `lost-lock` when another claim took it over; nothing changes then.
   */
  renewOutbox(claim: Claim, now: number, leaseMs: number): Promise<CommitResult>;

  /**
   * When the latest status of a send in doubt of the location arrived (see `ingest`), or null
   * when none did within the early statuses' hour. While they keep coming, the service is
   * still working through sends it took while replyflow did not hear from it, and a message in
   * doubt is not sent again (src/outbox/README.md).
   */
  inDoubtHeardAt(location: string): Promise<number | null>;

  /**
   * After the service accepted a message: atomically pop it (when it is the head), set the
   * "sent" guard `message.id → smsId` (kept ≥ 7 days), and write the message record, marked as
   * recorded sent (later statuses of the sms go straight to the mailbox). Status fields already
   * recorded by an earlier `sms.status` notification are kept, and the status events that
   * `ingest` kept waiting for this sms move, in arrival order, to the tail of the
   * conversation's mailbox, each with `runId` set to the record's; the conversation is then
   * marked ready (unless it has a ready time) and announced. All of this happens even when the
   * claim lost the lock (the answer is then `lost-lock`). On success, returns the view of the
   * outbox after the pop (`nextOutbox`, what `readOutbox(claim)` would then return), so a send
   * loop needs one call per message. When the outbox is then empty, the claim is released in
   * the same call, as `release(claim, now)` would, and the answer says `released: true`.
   * The popped message's body leaves the conversation's unrecorded sends when it points at
   * this sms. `counters` change with the pop, so once per message however often it is recorded.
   */
  recordSent(
    claim: Claim,
    messageId: string,
    record: MessageRecord,
    now: number,
    counters?: readonly CounterChange[],
    /** The message sent, as the caller holds it: a driver may build what it writes from it. */
    message?: OutboundMessage,
  ): Promise<RecordSentResult>;

  /** A transient failure, a head in doubt, or a message held back at send time: store the head
   * message's new attempt count (and the `marks` given: each replaces the message's field) and
   * release the claim with the conversation ready again at `notBefore`. */
  deferOutbound(
    claim: Claim,
    messageId: string,
    attempts: number,
    notBefore: number,
    marks?: OutboundMarks,
  ): Promise<CommitResult>;

  /** A permanent failure, or a contact update done: pop the head message and, atomically, push
   * `event` onto the conversation's mailbox so the bot hears of it (a `StatusEvent` for an SMS
   * given up, a `ContactEvent` for a contact update, taken or given up). An SMS gets a message
   * record `failedSmsId(id)` (errored, the event's reason) and goes to the transcript under it. */
  failOutbound(
    claim: Claim,
    messageId: string,
    event: StatusEvent | ContactEvent,
    now: number,
  ): Promise<CommitResult>;

  /**
   * Moves up to `limit` timers of `partition` whose due time is ≤ `now` into their
   * conversations' mailboxes, atomically (each timer fires once, whatever the number of
   * processes calling this), as `TimerEvent`s with id `timer:${timer.id}:${timer.dueAt}`, and
   * marks those conversations ready. Resolves to the number moved.
   */
  claimDueTimers(partition: number, now: number, limit: number): Promise<number>;

  /**
   * The earliest due time among `partition`'s timers, or an earlier time (a conversation whose
   * earliest timer was cancelled or pushed later may answer its former time until a
   * `claimDueTimers` passes it), or null when it has none. Never later than a pending timer.
   */
  nextTimerDue(partition: number): Promise<number | null>;

  /** The timers a conversation has pending, soonest first (inspection and tests). */
  pendingTimers(key: ConversationKey): Promise<TimerRecord[]>;

  /** Calls `listener` when work may be ready (after ingest, commit, release, claimDueTimers). Returns an unsubscribe. */
  onReady(listener: (queue: QueueName, partition: number) => void): () => void;

  /**
   * Calls `listener` when a commit armed a timer of `partition` earlier than the partition's
   * entry for that conversation was (on Redis from any process sharing the store), with its due
   * time: a hint for schedulers, so the timers a process sets are fired on time by the others
   * should it die. Returns an unsubscribe.
   */
  onTimerArmed(listener: (partition: number, dueAt: number) => void): () => void;

  /**
   * The results of a bot's conversations, in batches, oldest start first within each partition
   * (partitions one after another). Reads a bounded number of keys per call.
   */
  listResults(botId: string, query?: ResultQuery): AsyncIterable<ConversationResult[]>;

  /**
   * Whether the phone has opted out in the location: its suppression entry exists, however it
   * came (a keyword, `StepCommit.suppression`; an import, `addSuppressions`). The one source of
   * truth for "this phone opted out": the sender, the engine's starts and the admin API ask it.
   */
  isSuppressed(key: ConversationKey): Promise<boolean>;

  /**
   * Suppresses the phone at once, as a commit's `suppression: 'add'` does, ahead of the step
   * that will apply its opt-out: the webhook calls it for an opt-out keyword it has just
   * stored, so that from its 200 on the sender sends the phone nothing but the confirmation.
   * `reason` is the keyword texted (source `stop`).
   */
  markOptedOut(key: ConversationKey, now: number, reason?: string): Promise<void>;

  /**
   * Puts phones on a location's suppression list, each with its time and reason and `source`
   * (the opt-outs a team brings along). A phone already on the list is left exactly as it is,
   * its time, reason and source (a re-import does not make an older opt-out newer), and
   * counted as `existing`. An entry with an `event` (its `optout`, issue 24) has it queued in
   * its partition's event outbox in the same atomic step as the entry, due at the event's
   * `timestamp`, only when the entry is added: an opt-out already there sends nothing again.
   * On Redis one pipeline per partition (each in one slot, so on one node of a Cluster); a call
   * is not atomic as a whole, but each entry is, and a repeat is harmless.
   */
  addSuppressions(
    location: string,
    entries: readonly SuppressionEntry[],
    source: 'import' | 'api',
  ): Promise<SuppressionsAdded>;

  /**
   * Takes the phone off the location's suppression list and, in the same atomic call, clears
   * the `suppressed` flag of its conversation record if it has one (an ended record then gets
   * the retention's TTL, as an opt-in's would). With `event` (its `optin`, issue 24), queues it
   * in the partition's event outbox in that same call, due at its `timestamp`, only when the
   * phone was on the list. Resolves false when the phone was not on the list.
   */
  removeSuppression(key: ConversationKey, event?: OutboundEvent): Promise<boolean>;

  /**
   * A location's suppression list, in batches of about `batchSize` (default 500), in no
   * particular order. On Redis a SCAN over every partition's `suppressed:<location>:` keys (on
   * a Cluster, on every master): read-only and never blocking; an entry added or removed
   * meanwhile may or may not come. There is no counter: counting is reading it through.
   */
  listSuppressions(location: string, batchSize?: number): AsyncIterable<Suppression[]>;

  getConversation(key: ConversationKey): Promise<ConversationRecord | null>;
  getMessage(phone: string, smsId: string): Promise<MessageRecord | null>;
  /**
   * A conversation's transcript, read in one atomic call: its last
   * `storeLimits.transcriptEntries` messages in and out, oldest first (each outbound one with
   * its message record's status, reason, parts, encoding and price), and its run (status, bot,
   * version, state, pending timers, result, end code). Null when the phone has neither.
   */
  readTranscript(key: ConversationKey): Promise<Transcript | null>;
  /** Event ids applied to the conversation, oldest first (a capped log, for inspection and tests). */
  listApplied(key: ConversationKey): Promise<string[]>;
  pendingEvents(key: ConversationKey): Promise<MailboxEvent[]>;
  pendingOutbound(key: ConversationKey): Promise<OutboundMessage[]>;

  /**
   * Reads the conversation records page by page, for tools that look at all of them
   * (`replyflow bots check`): start with cursor `'0'`, pass on the cursor answered, stop when it
   * is `'0'` again. `count` is a hint of the page size. Read-only. Records of every status come
   * (active, done, errored: filter them); in no particular order, and on Redis (SCAN) a record
   * may come twice while keys are written, so dedupe by location and phone.
   */
  scanConversations(cursor: string, count: number): Promise<ConversationPage>;

  /** Keeps a dead letter in a capped list (newest first). */
  pushDeadLetter(letter: DeadLetter): Promise<void>;
  listDeadLetters(limit?: number): Promise<DeadLetter[]>;

  /**
   * Checks that the backend answers (readiness): resolves once it did, rejects with
   * `StoreUnavailableError` when it cannot be reached.
   */
  ping(): Promise<void>;

  /**
   * Samples the store for metrics at a bounded cost: looks at no more than `limit` conversation
   * records (default 1,000), and counts the outboxes waiting and the dead letters kept.
   */
  sample(limit?: number): Promise<StoreSample>;

  close(): Promise<void>;
}

export type QueueName = 'inbox' | 'outbox';

/** One page of `scanConversations`: the records, and the cursor of the next page (`'0'`: done). */
export interface ConversationPage {
  cursor: string;
  records: ConversationRecord[];
}

export interface IngestItem {
  event: MailboxEvent;
  /** For status items: the sms body as the service reported it (finds an unrecorded send). */
  body?: string;
  /** For status items: the message record update, applied only when it moves the record forward. */
  status?: Pick<
    MessageRecord,
    'status' | 'statusReason' | 'parts' | 'price' | 'createdAt' | 'updatedAt'
  >;
}

export interface IngestResult {
  /** True when every item had been taken in before (a redelivery; never for statuses alone). */
  duplicate: boolean;
  /** Events pushed onto mailboxes by this call. */
  pushed: number;
  /** The inbox claims made for the caller (`claimFor`); absent or empty otherwise. */
  claims?: ClaimWithView<'inbox'>[];
}

export interface Claim extends ConversationKey {
  queue: QueueName;
  partition: number;
  token: string;
}

/** The view a queue's claimer reads first: `InboxView` for `inbox`, `OutboxView` for `outbox`. */
export type QueueView<Q extends QueueName> = Q extends 'inbox' ? InboxView : OutboxView;

/** A claim with the first view of its queue, read atomically with it (see `Store.claim`). */
export type ClaimWithView<Q extends QueueName = QueueName> = Claim & {
  queue: Q;
  view: QueueView<Q>;
};

export interface InboxView {
  record: ConversationRecord | null;
  next: MailboxEvent | null;
  /**
   * The record of the message the head event is about, when replyflow sent it: for a reply the
   * message it answers (`originSmsId`), for a status the message it reports on (`smsId`).
   */
  origin: MessageRecord | null;
}

/**
 * An outbox's head, as the sender may send it now. Every call that answers one (claim,
 * claimMany, readOutbox, recordSent, a commit's outbox claim) first drops, atomically, the head
 * messages that must not be sent (DESIGN §2.6): any to a suppressed phone but the opt-out
 * confirmation, and, past the message's loop guard (sends to the phone recorded within its
 * window), any but the opt-out confirmation and the help text. Each dropped message is popped,
 * gets a message record (`droppedSmsId`, status `errored`, reason as `statusReason`), and is
 * listed in `dropped`. So the check costs no round trip of its own.
 */
export interface OutboxView {
  message: OutboundMessage | null;
  /** Messages dropped before this head was read, oldest first (absent when none). */
  dropped?: DroppedMessage[];
  sentSmsId: string | null;
  /** `claim` only: the claim took the outbox over from a holder that died mid-claim. */
  takenOver?: boolean;
  /** `readOutbox` with a lease to renew only: another claim took the outbox over; nothing was read. */
  lostLock?: boolean;
}

export interface StepCommit {
  eventId: string;
  expectedSeq: number;
  /** The new record (its seq must be expectedSeq + 1), or null to leave the record as it is. */
  record: ConversationRecord | null;
  outbound: OutboundMessage[];
  /**
   * Timers to write (replacing any with the same id) and timer ids to delete, in the same commit.
   * Each timer must belong to the claim's conversation and have the id `${runId}:${sendId}`; an
   * id may not be both set and cancelled (a `TypeError`). Only the conversation's own timers are
   * cancelled; an unknown id is ignored.
   */
  timers?: { set: TimerRecord[]; cancel: string[] };
  /**
   * Hand the outbox to this process's sender: when the step queues messages onto an outbox
   * that was empty and is not claimed, the commit also claims it for `leaseMs` with a fresh
   * token, as `claim('outbox', …)` would but without announcing it, and answers with that claim
   * as `outbox`. Otherwise (messages already waiting, or another claimer) the outbox is made
   * ready and announced as usual. Saves the sender a claim per conversation turn.
   */
  claimOutbox?: { leaseMs: number };
  /**
   * Opt-out (`add`) or opt-in (`remove`): the phone's suppression in the conversation's
   * location, written with the step. A suppressed phone is sent nothing but the opt-out
   * confirmation (see `OutboxView`), until it is removed.
   */
  suppression?: 'add' | 'remove';
  /** With `suppression: 'add'`: the keyword texted, kept as the entry's reason (source `stop`). */
  suppressionReason?: string;
  /**
   * The step starts a conversation: the commit is refused with `suppressed`, changing nothing,
   * when the phone is on the location's suppression list (however it got there). The engine
   * then runs the step again knowing it, and nothing starts. Checked in the commit itself, so
   * a normal step costs no read of its own.
   */
  unlessSuppressed?: boolean;
  /** Results to write (replacing the run's earlier one): a run's result changed in this step. */
  results?: ConversationResult[];
  /**
   * Counters to change in the same commit as what they count (a campaign's funnel): field `field`
   * of the counters hash `name`, in the conversation's partition, moves by `by`.
   */
  counters?: CounterChange[];
  /**
   * The campaign recipient whose start this step met and did not start (the phone had an active
   * conversation, had opted out, or its bot is gone): it becomes `state` with `reason`, with its
   * counters, if it is still `started` at that revision.
   */
  recipient?: {
    campaign: string;
    start: CampaignStart;
    state: 'skipped' | 'failed';
    reason: string;
  };
  /**
   * Outbound events (issue 24) queued in the same commit, each into its partition's event
   * outbox (`claimDueEvents`), due at once; an id already queued is left as it is. A refused
   * commit queues nothing.
   */
  events?: OutboundEvent[];
}

/** One counter's change (`readCounters(name)` sums it over the partitions). */
export interface CounterChange {
  name: string;
  field: string;
  by: number;
  /**
   * How long the hash is kept from its last change (ms). Absent: the retention. `0`: no TTL, a
   * gauge (conversations in a state now) whose field is deleted when it is counted down to 0.
   */
  ttlMs?: number;
}

/** Which results `listResults` reads. */
export interface ResultQuery {
  /** Only conversations started at or after this time (ms). */
  since?: number;
  location?: string;
}

/**
 * A commit's answer. `next` is the next view (`commitStep` only); `released` is true when the
 * call also released the claim because the list it popped was left empty (`commitStep` only);
 * `outbox` is the outbox claim the commit took (`StepCommit.claimOutbox`); `suppressed`, a
 * refused start (`StepCommit.unlessSuppressed`, `commitStep` only).
 */
export type CommitResult =
  | { ok: true; next?: InboxView; released?: boolean; outbox?: ClaimWithView<'outbox'> }
  | { ok: false; reason: 'lost-lock' | 'stale' | 'suppressed' };

/** What a direct turn's step starts from (`Store.peekConversation`). */
export interface DirectView {
  record: ConversationRecord | null;
  /** The record of the message the reply answers, when replyflow sent it. */
  origin: MessageRecord | null;
}

/** `commitDirect`'s answer: committed (with the outbox claim, as `commitStep`), or why not. */
export type DirectCommitResult =
  | { ok: true; outbox?: ClaimWithView<'outbox'> }
  | { ok: false; reason: 'busy' | 'duplicate' | 'stale' | 'suppressed' };

/**
 * `recordSent`'s answer: on success, the outbox's next view (after the pop), and whether the
 * claim was released with it because the outbox was left empty.
 */
export type RecordSentResult =
  | { ok: true; nextOutbox: OutboxView; released: boolean }
  | { ok: false; reason: 'lost-lock' | 'stale' };
