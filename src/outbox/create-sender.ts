import { describeEncoding, lintMessage } from '../bot/lint-message.ts';
import type { Logger } from '../observability/logger.ts';
import { maskPhone } from '../observability/mask-phone.ts';
import type { Clock } from '../scheduler/clock.ts';
import { sentCounters } from '../stats/counter-names.ts';
import { createQueueConsumer } from '../store/create-queue-consumer.ts';
import type {
  ContactEvent,
  MessageRecord,
  OutboundMessage,
  StatusEvent,
} from '../store/records.ts';
import type { Claim, ClaimWithView, OutboundMarks, OutboxView, Store } from '../store/store.ts';
import { createSendWindow } from './send-window.ts';
import { createServiceAnswers } from './service-answers.ts';
import type { SharedLimiter } from './shared-limiter.ts';
import { classifySendError, type SmsGateway } from './sms-gateway.ts';

/**
 * Sends in flight per process unless told otherwise (`REPLYFLOW_SEND_CONCURRENCY`): 8 kept a
 * sender below 1,000 SMS/s against a service 10 ms away; see docs/benchmarks.md.
 */
export const defaultSendsInFlight = 32;

/**
 * Claims handed over that may wait for a lane, in rounds of the lanes (on top of one round):
 * see `handOffBacklog` in create-queue-consumer.ts.
 */
const handOffBacklogRounds = 8;

/** How often a message in doubt looks for its status again until its grace ends. */
const inDoubtRecheckMs = 1_000;
/**
 * How often it looks while the service does not answer: no status can come then, and 500
 * messages in doubt looking every second cost 1,000 store calls a second for nothing.
 */
const inDoubtSilentRecheckMs = 5_000;

export interface SenderOptions {
  store: Store;
  gateway: SmsGateway;
  clock: Clock;
  logger: Logger;
  /**
   * `POST /sms` requests in flight at once (default `defaultSendsInFlight`, 32). Each one the process is killed after
   * the service accepted and before its id was recorded is in doubt: the sender that takes the
   * outbox over looks for its status before sending it again (`inDoubtGraceMs`, DESIGN §2.4).
   */
  sendsInFlight?: number;
  /**
   * Conversations claimed at once (default and at least `sendsInFlight`, at least 8). A lane claims, reads and
   * releases while another's send is in flight, then waits for a place in the send window.
   * An eighth as many more (at least 2) take answers only (answers first).
   */
  lanes?: number;
  leaseMs?: number;
  /**
   * After a takeover (`view.takenOver`), how long the head waits for the status of a send the
   * dead holder may have made before it is sent (default 30 s; 0 sends at once).
   */
  inDoubtGraceMs?: number;
  /** The safety sweep's pace: one partition's next ready time read every `idleMs` (default 1 s), in turn. */
  idleMs?: number;
  /** First retry delay; doubles on each attempt, with jitter, up to `maxDelayMs`. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /**
   * How long after it was queued a message may still be retried on transient failures; after
   * that it is given up and the bot hears `send_failed`. Default one hour.
   */
  sendDeadlineMs?: number;
  /**
   * The last look before `POST /sms` reads the outbox again (suppression, loop guard, the claim
   * still held) unless the view the message came with was read less than this long ago, in real
   * time (default 10 ms): that read made the same checks in the same atomic call, so a message
   * handed over by its commit and sent at once costs no store call more. 0 reads it every time.
   */
  recheckAfterMs?: number;
  /** The locations' shared limiters: a 429 pauses every process sending for that location. */
  limiters?: ReadonlyMap<string, SharedLimiter>;
  /**
   * When `now` falls in a location's quiet hours, the time they end. A message the bot sent on
   * its own (`botInitiated`: an API start, a timer, a campaign) is checked against it when it is
   * sent, so a backlog or a retry never drains into the night.
   */
  quietUntil?: (location: string, now: number) => number | undefined;
  random?: () => number;
  /**
   * Hears what became of each message the sender handled (metrics): `durationMs` is the
   * `POST /sms` request's, when one was made.
   */
  onSend?: (
    result: 'sent' | 'failed' | 'retry' | 'suppressed' | 'in_doubt' | 'loop_guard',
    durationMs?: number,
  ) => void;
}

/**
 * What became of one message. A recorded send carries the outbox's next view, whether that
 * call released the claim, and when it extended the lease. `expiring`: the claim had waited
 * for the send window so long that its lease might run out mid-send; nothing was sent.
 */
type Outcome =
  | { kind: 'sent'; next: OutboxView; released: boolean; leaseFrom: number }
  | { kind: 'skipped'; next: OutboxView; leaseFrom: number }
  /** The head was popped with an event for its bot (a send given up, a contact update done). */
  | { kind: 'popped'; leaseFrom: number }
  | { kind: 'deferred' | 'lost' | 'expiring' | 'unrecorded' };

/**
 * Since when `message` is in doubt, if it is: it heads an outbox just taken over from a holder
 * that may have sent it, or a send of it may have reached the service (`inDoubtSince`; a
 * message of an older version has only `inDoubtUntil`).
 */
function inDoubtSince(
  view: OutboxView,
  message: OutboundMessage,
  now: number,
  graceMs: number,
): number | undefined {
  if (view.sentSmsId || graceMs <= 0) return undefined;
  if (message.inDoubtSince !== undefined) return message.inDoubtSince;
  if (view.takenOver) return now;
  if (message.inDoubtUntil !== undefined) return message.inDoubtUntil - graceMs;
  return undefined;
}

/**
 * Thrown by the check made once a send has its rate-limit slot, immediately before `POST /sms`:
 * the message must not go now. Nothing was sent.
 */
class HeldBack extends Error {
  constructor(
    readonly reason:
      | { kind: 'quiet'; until: number }
      | { kind: 'changed'; view: OutboxView; at: number }
      | { kind: 'lost' },
  ) {
    super(reason.kind);
  }
}

/**
 * The outbox sender: claims conversations with messages to send and sends them in the order
 * the bot queued them, from the short code. A message the service accepted is popped together
 * with its "sent" guard and its message record, in one atomic call: after that it is never sent
 * again. A duplicate is possible only if this process dies between the service's answer and
 * that call (DESIGN §2.4). Transient failures wait with jittered exponential backoff (at least
 * `Retry-After`) until the send deadline; permanent ones, and the deadline, reach the bot as
 * `sms.status` / `errored` / `send_failed`.
 */
export function createSender(options: SenderOptions) {
  const { store, gateway, clock, logger } = options;
  const sendDeadlineMs = options.sendDeadlineMs ?? 3_600_000;
  const baseDelayMs = options.baseDelayMs ?? 1_000;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  const random = options.random ?? Math.random;
  const leaseMs = options.leaseMs ?? 30_000;
  const inDoubtGraceMs = options.inDoubtGraceMs ?? 30_000;
  const recheckAfterMs = options.recheckAfterMs ?? 10;
  const sendsInFlight = options.sendsInFlight ?? defaultSendsInFlight;
  // An eighth of the places (none below 8) are kept for answers: bot-initiated sends wait in
  // them for their rate-limit slots, one batch at a time (answers first).
  const window = createSendWindow(sendsInFlight, Math.floor(sendsInFlight / 8));
  const answers = createServiceAnswers({ clock, ping: gateway.ping?.bind(gateway) });
  /**
   * Until when a message may be retried: the send deadline counted from when it could first go
   * (its quiet-hours hold's end), not from when it was queued: a night's wait spends none of it.
   */
  const deadlineOf = (message: OutboundMessage) =>
    Math.max(message.queuedAt, message.holdUntil ?? 0) + sendDeadlineMs;

  const lanes = Math.max(options.lanes ?? 8, sendsInFlight);
  // Answers first: on top of the lanes, an eighth as many (at least 2) never wait with
  // bot-initiated work, so an answer is claimed at once however long a campaign's backlog is.
  // On top, not among them: bot-initiated traffic keeps every lane it had (taking 2 of 8 made
  // the 2,000 messages of the send-faults test 20 % slower).
  const answerLanes = Math.max(2, Math.floor(lanes / 8));
  const consumer = createQueueConsumer({
    store,
    queue: 'outbox',
    clock,
    logger,
    concurrency: lanes + answerLanes,
    leaseMs,
    idleMs: options.idleMs ?? 1_000,
    handle: sendAll,
    answersFirst: {
      isBulk: (claim) => claim.view.message?.botInitiated === true,
      lanes: answerLanes,
    },
    // Behind (the service slower than the replies come), a commit still hands its outbox over
    // while claims waiting here are taken within an eighth of their lease: making it ready
    // instead costs Redis a claim and a last look per outbox. A claim that waited past
    // `recheckAfterMs` gets its last look anyway, so an opt-out committed meanwhile is seen.
    handOffBacklog: {
      places: handOffBacklogRounds * (lanes + answerLanes),
      maxWaitMs: leaseMs / 8,
    },
  });

  // The claim came with the first view, and each recorded send returns the next one; the
  // recorded send that empties the outbox releases the claim with it.
  async function sendAll(
    { view: first, ...claim }: ClaimWithView<'outbox'>,
    claimedAt: number,
  ): Promise<void> {
    let released = false;
    let leaseFrom = claimedAt;
    // When the view in hand was read, in real time (a claim is handled as soon as it is made:
    // a hand-over goes to a lane reserved before the commit).
    let viewAt = performance.now();
    try {
      let view: OutboxView = first;
      reportDropped(claim, view);
      while (view.message && consumer.running) {
        const outcome = await sendOne(claim, view, leaseFrom, viewAt);
        // A deferral releases the claim itself, with the conversation ready again later.
        if (outcome.kind === 'deferred') released = true;
        if (outcome.kind === 'sent') released = outcome.released;
        // Sent, and its record failed: a release would make the head ready to go again at
        // once. Left to its lease, the outbox is taken over, and the head is in doubt: found
        // by its status (DESIGN §2.4).
        if (outcome.kind === 'unrecorded') released = true;
        if (outcome.kind !== 'sent' && outcome.kind !== 'popped' && outcome.kind !== 'skipped') {
          return;
        }
        leaseFrom = outcome.leaseFrom;
        view =
          outcome.kind === 'popped' ? await store.readOutbox(claim, clock.now()) : outcome.next;
        viewAt = performance.now();
        reportDropped(claim, view);
      }
    } finally {
      if (!released) {
        await store.release(claim, clock.now()).catch((error: unknown) => {
          logger.warn({ err: error }, 'could not release an outbox; its lease will expire');
        });
      }
    }
  }

  /** The store dropped these instead of answering them (DESIGN §2.6): say so, masked. */
  function reportDropped(claim: Claim, view: OutboxView): void {
    for (const dropped of view.dropped ?? []) {
      options.onSend?.(dropped.reason);
      logger
        .child({
          location: claim.location,
          bot: dropped.botId,
          conversation: maskPhone(claim.phone),
        })
        .info(
          { outbox: dropped.id, code: dropped.reason },
          dropped.reason === 'suppressed'
            ? 'message dropped: the phone opted out'
            : 'message dropped: the loop guard’s limit of messages to this phone was reached',
        );
    }
  }

  async function sendOne(
    claim: Claim,
    view: OutboxView,
    leaseFrom: number,
    viewAt: number,
  ): Promise<Outcome> {
    const message = view.message as OutboundMessage;
    const now = clock.now();
    // Quiet hours: a message the bot started on its own waits, in the outbox, for them to end.
    const quietEnds = heldUntil(message, now);
    if (quietEnds !== undefined) return hold(claim, message, quietEnds);
    const doubt = await waitInDoubt(claim, view, message, now);
    if (doubt) return doubt;
    if (view.sentSmsId) {
      if (view.takenOver || message.inDoubtUntil !== undefined) {
        logFor(message).info(
          { outbox: message.id, smsId: view.sentSmsId },
          'a message in doubt (a process died before recording it, or its send failed ambiguously) was found sent by its status: recorded, not sent again',
        );
      }
      // The service already accepted it: pop it without sending again. The record keeps the
      // status fields a status notification may have written first, and gains the run.
      return recorded(claim, message, record(message, view.sentSmsId));
    }
    // Waiting for the window used up part of the lease: a claim that may expire mid-send could
    // be taken over and the message sent twice, so it is given back unsent instead.
    const sent = await window.run(async () => {
      if (clock.now() - leaseFrom > leaseMs / 2) return { kind: 'expiring' } as const;
      let smsId: string;
      const sentAt = performance.now();
      try {
        // The claim is kept alive while the request waits for its slot and is in flight: a
        // live holder's outbox is never taken over and its head sent by another claim meanwhile.
        smsId = await keepingClaim(claim, message, async () =>
          message.contact
            ? await updateContact(message, message.contact)
            : (
                await gateway.send(
                  message.location,
                  { to: message.phone, body: message.body },
                  {
                    beforeRequest: () => checkBeforeRequest(claim, message, viewAt),
                    // Bot-initiated traffic gives way to answers at the rate limit.
                    ...(message.botInitiated && { bulk: true }),
                  },
                )
              ).id,
        );
      } catch (error) {
        if (error instanceof HeldBack) return { kind: 'held', reason: error.reason } as const;
        answers.heard(message.location, error);
        return { kind: 'error', error, durationMs: performance.now() - sentAt } as const;
      }
      answers.answered(message.location);
      options.onSend?.('sent', performance.now() - sentAt);
      // A contact update: its bot hears it was taken, with the pop (no message record).
      if (message.contact)
        return told(claim, message, contactOutcome(message, true, '', clock.now()));
      // Outside the try: a store failure here is not a send failure (the message went out).
      const sent = record(message, smsId);
      if (sent.encoding === 'UCS-2' || (sent.parts ?? 1) > 2) {
        // The static texts were linted when the bots loaded; this one may have been computed.
        logFor(message).info(
          { outbox: message.id, encoding: sent.encoding, parts: sent.parts },
          `sent in ${sent.encoding}, ${sent.parts} part(s): ${lintMessage(message.body).warnings.join('; ')}`,
        );
      }
      return recorded(claim, message, sent);
    }, message.botInitiated && { bulk: true });
    // A failure is handled outside the window: the service took nothing to record.
    if (sent.kind === 'error') return handleFailure(claim, message, sent.error, sent.durationMs);
    if (sent.kind !== 'held') return sent;
    if (sent.reason.kind === 'lost') {
      // Another claim took the outbox over while this one waited for its slot: nothing was
      // sent, and the head is the other claim's (in doubt there, so it waits for the grace).
      logFor(message).warn(
        { outbox: message.id },
        'the outbox was taken over while its message waited for its rate-limit slot: not sent here',
      );
      return { kind: 'lost' };
    }
    if (sent.reason.kind === 'quiet') return hold(claim, message, sent.reason.until);
    // The message is no longer the head: dropped (an opt-out came while it waited for its
    // slot), or moved. Nothing was sent; the loop goes on with the outbox as it is now.
    reportDropped(claim, sent.reason.view);
    return { kind: 'skipped', next: sent.reason.view, leaseFrom: sent.reason.at };
  }

  /** When the location's quiet hours (or the message's own hold) keep `message` from going now: their end. */
  function heldUntil(message: OutboundMessage, now: number): number | undefined {
    const quiet = message.botInitiated ? options.quietUntil?.(message.location, now) : undefined;
    const until = Math.max(message.holdUntil ?? 0, quiet ?? 0);
    return until > now ? until : undefined;
  }

  /**
   * The last look before `POST /sms`, once the request has its rate-limit slot (DESIGN §2.6):
   * quiet hours that began while it waited, and the outbox read again, atomically dropping what
   * must not go (an opt-out committed meanwhile, the loop guard). Throws `HeldBack` when the
   * message must not be sent now. The outbox is not read again when the view the message came
   * with (`viewAt`, real time) is younger than `recheckAfterMs`: the call that answered it made
   * those checks, as atomically, as recently as a read now would (issue 26: one store call a
   * turn less for an answer sent at once).
   */
  async function checkBeforeRequest(
    claim: Claim,
    message: OutboundMessage,
    viewAt: number,
  ): Promise<void> {
    const now = clock.now();
    const quietEnds = heldUntil(message, now);
    if (quietEnds !== undefined) throw new HeldBack({ kind: 'quiet', until: quietEnds });
    if (performance.now() - viewAt < recheckAfterMs) return;
    // Only under a claim that still holds the outbox, its lease renewed in the same call: the
    // request starts with a whole lease before it (and `keepingClaim` renews it meanwhile).
    const view = await store.readOutbox(claim, now, leaseMs, message);
    if (view.lostLock) throw new HeldBack({ kind: 'lost' });
    if (view.message?.id !== message.id) throw new HeldBack({ kind: 'changed', view, at: now });
  }

  /**
   * Runs `work` (a request to the service, from its wait for a rate-limit slot to its answer)
   * with the claim's lease renewed every third of it: a request that outlasts the lease (a
   * slow service, a loaded process) never lets another claim take a live holder's outbox over
   * and send its head again. A holder that dies or stalls stops renewing, and its outbox is
   * taken over as before.
   */
  async function keepingClaim<T>(
    claim: Claim,
    message: OutboundMessage,
    work: () => Promise<T>,
  ): Promise<T> {
    let told = false;
    const renew = () => {
      store.renewOutbox(claim, clock.now(), leaseMs).then(
        (result) => {
          if (result.ok || told) return;
          told = true;
          logFor(message).warn(
            { outbox: message.id },
            'the outbox was taken over while its request was in flight (this process stalled past its lease)',
          );
        },
        // A store failure: the next renewal tries again; the lease still has two thirds left.
        () => undefined,
      );
    };
    const timer = setInterval(renew, Math.max(50, Math.floor(leaseMs / 3)));
    try {
      return await work();
    } finally {
      clearInterval(timer);
    }
  }

  /** Gives the claim back with the message held until `until` (quiet hours), said once in the log. */
  function hold(claim: Claim, message: OutboundMessage, until: number): Promise<Outcome> {
    logFor(message).info(
      { outbox: message.id, until: new Date(until).toISOString() },
      'quiet hours: message held until they end',
    );
    return defer(claim, message.id, message.attempts, until, { holdUntil: until });
  }

  // One read of a location's latest in-doubt status at a time, shared by the heads asking.
  const heardReads = new Map<string, Promise<number | null>>();
  function inDoubtHeardAt(location: string): Promise<number | null> {
    let read = heardReads.get(location);
    if (!read) {
      read = store.inDoubtHeardAt(location).finally(() => heardReads.delete(location));
      heardReads.set(location, read);
    }
    return read;
  }

  /**
   * A message in doubt (its outbox taken over from a holder that may have sent it, or a send of
   * it that may have reached the service) waits for the service's status of that send: the
   * claim looks it up (`view.sentSmsId`). The wait is the grace counted from the service's
   * first answer after the doubt began: while the service does not answer, no status can come,
   * and the message waits on (DESIGN §2.4); and, past it, from the latest status of a send in
   * doubt of the location (`Store.inDoubtHeardAt`): while they keep coming, the service is
   * still reporting what it took. Answers the deferral, or undefined once the doubt is over and
   * the message may be sent again.
   */
  async function waitInDoubt(
    claim: Claim,
    view: OutboxView,
    message: OutboundMessage,
    now: number,
  ): Promise<Outcome | undefined> {
    const since = inDoubtSince(view, message, now, inDoubtGraceMs);
    if (since === undefined) return undefined;
    const from = answers.graceFrom(message.location, since);
    let ends = from === undefined ? undefined : from + inDoubtGraceMs;
    const deadline = deadlineOf(message);
    if (ends !== undefined && now >= ends && now < deadline) {
      // The grace since the service answered again is over. While statuses of sends in doubt
      // keep arriving (the service works through what it took meanwhile, or replyflow through
      // its notifications), this one's may be among those still to come: the grace counts
      // from the latest of them.
      const heard = await inDoubtHeardAt(message.location);
      if (heard !== null && heard >= since) ends = Math.max(ends, heard + inDoubtGraceMs);
    }
    if (ends === undefined && now > deadline && answers.silent(message.location)) {
      // Sending again could only duplicate it, into a service that still does not answer.
      options.onSend?.('failed');
      return giveUp(
        claim,
        message,
        'in doubt, and the service did not answer before the send deadline: not sent again',
      );
    }
    if (ends !== undefined && now >= Math.min(ends, deadline)) return undefined;
    // Said once, when the doubt starts; the look-ups until it ends are quiet.
    if (view.takenOver) {
      logFor(message).info(
        { outbox: message.id, since: new Date(since).toISOString() },
        'the first message of this outbox may have been sent; waiting for its status',
      );
    }
    // Its status usually comes within a second: look again soon rather than at the end.
    const until = ends ?? now + inDoubtGraceMs;
    const recheckMs = ends === undefined ? inDoubtSilentRecheckMs : inDoubtRecheckMs;
    // Never past the send deadline: what happens then is decided then.
    const next = Math.min(until, now + recheckMs, now < deadline ? deadline + 1 : Infinity);
    return defer(claim, message.id, message.attempts, next, {
      inDoubtSince: since,
      inDoubtUntil: until,
    });
  }

  /**
   * Gives the claim back with the head ready again at `notBefore`. Nobody announces that time,
   * so this process's consumer is told to claim the outbox then: a retry, a hold or a doubt is
   * not left to the slow safety sweep.
   */
  async function defer(
    claim: Claim,
    messageId: string,
    attempts: number,
    notBefore: number,
    marks?: OutboundMarks,
  ): Promise<Outcome> {
    const result = await store.deferOutbound(claim, messageId, attempts, notBefore, marks);
    if (!result.ok) return { kind: 'lost' };
    consumer.wakeAt(claim.partition, notBefore);
    return { kind: 'deferred' };
  }

  /** A contact update queued with a step: sent, and popped, like a message. Its record's id says what it was. */
  async function updateContact(
    message: OutboundMessage,
    contact: NonNullable<OutboundMessage['contact']>,
  ): Promise<string> {
    if (!gateway.updateContact) {
      throw new TypeError(
        'this sender was given no way to update contacts (SmsGateway.updateContact)',
      );
    }
    await gateway.updateContact(
      message.location,
      contact.group,
      contact.fields,
      message.botInitiated && { bulk: true },
    );
    return `contact:${message.id}`;
  }

  // recordSent records the send even when the lease was lost meanwhile, so it is never resent.
  async function recorded(
    claim: Claim,
    message: OutboundMessage,
    sent: MessageRecord,
  ): Promise<Outcome> {
    const now = clock.now();
    // A sent SMS counts in its bot's tallies with the pop (once, however often it is recorded).
    const counters = message.contact ? undefined : sentCounters(message, now);
    let result: Awaited<ReturnType<Store['recordSent']>>;
    try {
      result = await recordSentRetrying(claim, message, sent, now, counters);
    } catch (error) {
      logFor(message).error(
        { err: error, outbox: message.id, smsId: sent.smsId },
        'sent, but the store did not take its record: the outbox is left to its lease, and the claim that takes it over finds the send by its status',
      );
      return { kind: 'unrecorded' };
    }
    if (!result.ok) {
      logFor(message).warn(
        { outbox: message.id, smsId: sent.smsId },
        'sent and recorded, but the claim was lost',
      );
      return { kind: 'lost' };
    }
    return { kind: 'sent', next: result.nextOutbox, released: result.released, leaseFrom: now };
  }

  /**
   * `recordSent`, tried again on a store failure (twice, 250 ms then 1 s later): the message
   * went out, so giving up the record would send it again.
   */
  async function recordSentRetrying(
    claim: Claim,
    message: OutboundMessage,
    sent: MessageRecord,
    now: number,
    counters: ReturnType<typeof sentCounters> | undefined,
  ): Promise<Awaited<ReturnType<Store['recordSent']>>> {
    for (const pauseMs of [250, 1_000]) {
      try {
        return await store.recordSent(claim, message.id, sent, now, counters, message);
      } catch {
        await new Promise((resolve) => setTimeout(resolve, pauseMs));
      }
    }
    return store.recordSent(claim, message.id, sent, now, counters, message);
  }

  async function handleFailure(
    claim: Claim,
    message: OutboundMessage,
    error: unknown,
    durationMs?: number,
  ): Promise<Outcome> {
    const failure = classifySendError(error);
    const attempts = message.attempts + 1;
    const log = logFor(message);
    if (failure.retryAfterMs !== undefined) {
      await options.limiters?.get(message.location)?.pause(failure.retryAfterMs);
    }
    const backoff =
      Math.min(maxDelayMs, baseDelayMs * 2 ** Math.min(message.attempts, 30)) *
      (0.5 + random() / 2);
    const delay = Math.max(backoff, failure.retryAfterMs ?? 0);
    const now = clock.now();
    if (
      failure.kind === 'transient' &&
      failure.mayHaveBeenSent &&
      inDoubtGraceMs > 0 &&
      now <= deadlineOf(message)
    ) {
      // The service may have accepted it (a 5xx, a time-out): a send in doubt, as after a
      // takeover. Its status, if it was sent, has the grace to arrive, counted from the
      // service's first answer from now on; the claim looks for it (first after the usual
      // backoff) and sends again only when none came (waitInDoubt).
      log.warn(
        { outbox: message.id, attempts, code: 'in_doubt', reason: failure.reason },
        'send failed in a way that may have reached the service: it may have been sent; waiting for its status before sending again',
      );
      options.onSend?.('in_doubt', durationMs);
      const from = answers.graceFrom(message.location, now);
      const until = (from ?? now) + inDoubtGraceMs;
      return defer(claim, message.id, attempts, Math.min(now + delay, until), {
        inDoubtSince: now,
        inDoubtUntil: until,
      });
    }
    if (failure.kind === 'transient' && now + delay <= deadlineOf(message)) {
      log.warn(
        { outbox: message.id, attempts, delayMs: Math.round(delay), reason: failure.reason },
        'send failed; will retry',
      );
      options.onSend?.('retry', durationMs);
      return defer(claim, message.id, attempts, now + delay);
    }
    options.onSend?.('failed', durationMs);
    return giveUp(claim, { ...message, attempts }, failure.reason);
  }

  /**
   * Pops the message unsent and tells its bot: `sms.status` errored `send_failed` for an SMS,
   * `contact.failed` with the reason for a contact update.
   */
  async function giveUp(claim: Claim, message: OutboundMessage, reason: string): Promise<Outcome> {
    const now = clock.now();
    logFor(message).error(
      { outbox: message.id, attempts: message.attempts, reason },
      'send failed for good; telling the bot',
    );
    if (message.contact) return told(claim, message, contactOutcome(message, false, reason, now));
    return told(claim, message, {
      v: 1,
      id: `send-failed:${message.id}`,
      kind: 'status',
      location: message.location,
      phone: message.phone,
      receivedAt: now,
      smsId: '',
      outboxId: message.id,
      runId: message.runId,
      status: 'errored',
      statusReason: 'send_failed',
    });
  }

  /** Pops the head and pushes `event` to its conversation's mailbox, in one atomic call. */
  async function told(
    claim: Claim,
    message: OutboundMessage,
    event: StatusEvent | ContactEvent,
  ): Promise<Outcome> {
    const now = event.receivedAt;
    const popped = await store.failOutbound(claim, message.id, event, now);
    return popped.ok ? { kind: 'popped', leaseFrom: now } : { kind: 'lost' };
  }

  function logFor(message: OutboundMessage): Logger {
    return logger.child({
      location: message.location,
      bot: message.botId,
      conversation: maskPhone(message.phone),
    });
  }

  return {
    start: () => consumer.start(),
    stop: () => consumer.stop(),
    /** Takes outbox claims that this process's worker made in its commits (`outboxHandOff`). */
    handOff: {
      reserve: (wanted: number) => consumer.reserve(wanted),
      offer: (claim: ClaimWithView<'outbox'>, claimedAt: number) =>
        consumer.offer(claim, claimedAt),
      unreserve: (count: number) => consumer.unreserve(count),
    },
  };
}

function record(message: OutboundMessage, smsId: string): MessageRecord {
  return {
    v: 1,
    smsId,
    location: message.location,
    phone: message.phone,
    status: 'pending',
    statusReason: '',
    runId: message.runId,
    botId: message.botId,
    outboxId: message.id,
    // What the text costs, as sent (the service's own count, from its statuses, comes later).
    ...(message.contact
      ? {}
      : (({ encoding, segments }) => ({ encoding, parts: segments }))(
          describeEncoding(message.body),
        )),
  };
}

/** What becomes of a contact update, for the run that queued it (`contact.updated` / `contact.failed`). */
function contactOutcome(
  message: OutboundMessage,
  ok: boolean,
  reason: string,
  now: number,
): ContactEvent {
  return {
    v: 1,
    id: `contact:${message.id}`,
    kind: 'contact',
    location: message.location,
    phone: message.phone,
    receivedAt: now,
    runId: message.runId,
    outboxId: message.id,
    group: message.contact!.group,
    ok,
    reason,
  };
}
