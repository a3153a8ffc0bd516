import type { BotRegistry } from '../bot/bot-registry.ts';
import type { Logger } from '../observability/logger.ts';
import { maskPhone } from '../observability/mask-phone.ts';
import type { EventDispatcher } from '../outbox/create-event-dispatcher.ts';
import type { Clock } from '../scheduler/clock.ts';
import type { Scheduler } from '../scheduler/create-scheduler.ts';
import { createQueueConsumer, type HandOff } from '../store/create-queue-consumer.ts';
import {
  type ConversationRecord,
  type MailboxEvent,
  type MessageRecord,
  type ReplyEvent,
  type StatusEvent,
  statusRank,
} from '../store/records.ts';
import type {
  Claim,
  ClaimWithView,
  CommitResult,
  DirectCommitResult,
  InboxView,
  IngestItem,
  StepCommit,
  Store,
} from '../store/store.ts';
import type { DirectTurn, InboxHandOff } from '../webhook/handle-notification.ts';
import type { ComplianceRules } from './compliance-rules.ts';
import { newRunId as defaultNewRunId } from './new-run-id.ts';
import { runStep, type StepOutcome } from './run-step.ts';

export interface WorkerOptions {
  store: Store;
  registry: BotRegistry;
  clock: Clock;
  logger: Logger;
  /** Conversations drained at once by this process. */
  concurrency?: number;
  /** How long a claim hides a conversation from other workers; a dead worker's claim expires after it. */
  leaseMs?: number;
  /** The safety sweep's pace: one partition's next ready time read every `idleMs` (default 1 s), in turn. */
  idleMs?: number;
  newRunId?: () => string;
  /**
   * This process's sender, when it runs one: a step that queues the first messages of an idle
   * outbox claims that outbox in its commit and hands the claim over, so the sender starts
   * sending without a claim of its own (one Redis call less per turn).
   */
  outboxHandOff?: OutboxHandOff;
  /**
   * This process's scheduler, when it runs one: told of the earliest timer each commit sets, so
   * it fires that timer on time without polling the store for it.
   */
  scheduler?: Pick<Scheduler, 'armed'>;
  /**
   * The compliance rules of a location (STOP, HELP, START, the loop guard, quiet hours; see
   * `ComplianceRules`). `app/` gives every location's; undefined for a location leaves its
   * messages to the bots alone.
   */
  compliance?: (location: string) => ComplianceRules | undefined;
  /**
   * Whether a location has event subscriptions (issue 24): only then do its steps queue
   * outbound events in their commits. Absent: none do.
   */
  hasSubscriptions?: (location: string) => boolean;
  /**
   * This process's event dispatcher, when it runs one: told of the partition of each commit
   * that queued outbound events, so it delivers them at once rather than when its poll of
   * that partition comes round.
   */
  events?: Pick<EventDispatcher, 'queued'>;
  /** Called after each committed step (metrics, tests), with the time it took to run and commit. */
  onStep?: (outcome: StepOutcome, claim: Claim, durationMs: number) => void;
}

/** Where a commit's outbox claim goes: the process's sender (`Sender.handOff`). */
export type OutboxHandOff = HandOff<'outbox'>;

export interface Worker {
  start(): void;
  /** Stops claiming; resolves when every lane has committed or abandoned its current step. */
  stop(): Promise<void>;
  /** Takes the inbox claims this process's web role made with its ingest (`inboxHandOff`). */
  readonly handOff: InboxHandOff;
  /**
   * A direct turn (docs/architecture.md, "The direct turn"): steps a reply that no mailbox
   * holds, in the web role's request, and commits it with `Store.commitDirect`. `committed`
   * and `duplicate` leave nothing more to do but answer; `queue` (the conversation is busy or
   * moved meanwhile, or the worker is stopping) leaves the notification to the usual ingest,
   * and nothing was written. A status (`status`, its record fields) is stepped so too when
   * the store can move its message's record with the commit (`Store.peekConversation` with
   * its rank); never `duplicate` (a redelivered status moves nothing: it is queued).
   */
  direct(event: ReplyEvent | StatusEvent, status?: IngestItem['status']): Promise<DirectTurn>;
}

/**
 * The conversation worker: claims ready conversations, and drains each mailbox in order, one
 * committed step per event. Several processes may run workers on one store: the claim's token
 * lock and the commit's fencing keep each event applied exactly once in effect.
 */
export function createWorker(options: WorkerOptions): Worker {
  const { store, clock, logger } = options;
  const leaseMs = options.leaseMs ?? 30_000;
  const newRunId = options.newRunId ?? defaultNewRunId;
  const consumer = createQueueConsumer({
    store,
    queue: 'inbox',
    clock,
    logger,
    concurrency: options.concurrency ?? 8,
    leaseMs,
    idleMs: options.idleMs ?? 1_000,
    handle: drain,
  });

  // The claim came with the first view: no read before the first step. The commit that empties
  // the mailbox releases the claim with it.
  async function drain({ view: first, ...claim }: ClaimWithView<'inbox'>): Promise<void> {
    let released = false;
    const save = (step: StepCommit, now: number) => store.commitStep(claim, step, now);
    try {
      let view: InboxView = first;
      while (view.next && consumer.running) {
        const event = view.next;
        const stepStartedAt = performance.now();
        // The store read the message this event is about with the view: no second call.
        const run = (suppressed: boolean) => stepOf(event, view.record, view.origin, suppressed);
        let { commit, outcome } = run(false);
        let committed = await commitOne(commit, save);
        if (!committed.result.ok && committed.result.reason === 'suppressed') {
          // A start to a phone on the suppression list: the step again, knowing it (drops it).
          ({ commit, outcome } = run(true));
          committed = await commitOne(commit, save);
        }
        const { result, committedAt } = committed;
        report(claim, event.id, event.kind, outcome);
        if (!result.ok) {
          logger.warn(
            { reason: result.reason, event: event.id },
            'step not committed; leaving the conversation',
          );
          return;
        }
        await committedStep(claim, commit, outcome, result.outbox, committedAt, stepStartedAt);
        released = result.released === true;
        view = result.next ?? (await store.readInbox(claim));
      }
    } finally {
      // Compare-and-delete on the token: safe even when the lock was lost meanwhile.
      if (!released) {
        await store.release(claim, clock.now()).catch((error: unknown) => {
          logger.warn({ err: error }, 'could not release a conversation; its lease will expire');
        });
      }
    }
  }

  function stepOf(
    event: MailboxEvent,
    record: ConversationRecord | null,
    message: MessageRecord | null,
    suppressed: boolean,
  ) {
    return runStep({
      event,
      record,
      message,
      registry: options.registry,
      now: clock.now(),
      newRunId,
      compliance: options.compliance?.(event.location),
      ...(suppressed && { suppressed }),
      ...(options.hasSubscriptions?.(event.location) && { events: true }),
    });
  }

  /** After a committed step: its outbox to the sender, its timers to the scheduler, onStep. */
  async function committedStep(
    claim: Claim,
    commit: StepCommit,
    outcome: StepOutcome,
    outbox: ClaimWithView<'outbox'> | undefined,
    committedAt: number,
    stepStartedAt: number,
  ): Promise<void> {
    if (outbox && !options.outboxHandOff?.offer(outbox, committedAt)) {
      // The sender stopped meanwhile: any sender may take the outbox at once.
      await store.release(outbox, clock.now());
    }
    const timers = commit.timers?.set ?? [];
    if (timers.length > 0) {
      options.scheduler?.armed(claim.partition, Math.min(...timers.map((t) => t.dueAt)));
    }
    if (commit.events?.length) options.events?.queued(claim.partition);
    options.onStep?.(outcome, claim, performance.now() - stepStartedAt);
  }

  // Each in the request that brought it: the web role bounds those (REPLYFLOW_MAX_INFLIGHT).
  async function direct(
    event: ReplyEvent | StatusEvent,
    status?: IngestItem['status'],
  ): Promise<DirectTurn> {
    if (!consumer.running) return 'queue';
    if (event.kind === 'status' && !status) return 'queue';
    const turn = await directTurn(event, status);
    // Stale: another commit (often another process's) came between the look and the commit,
    // which wrote nothing. The step again, once, on a new look (a read: the store forgot the
    // value it looked at); then the mailbox.
    if (turn === 'stale' && event.kind === 'reply') {
      const again = await directTurn(event, status);
      return again === 'stale' ? 'queue' : again;
    }
    return turn === 'stale' ? 'queue' : turn;
  }

  /** One look, step and commit of `direct`; `stale` for a commit refused as stale. */
  async function directTurn(
    event: ReplyEvent | StatusEvent,
    status?: IngestItem['status'],
  ): Promise<DirectTurn | 'stale'> {
    const view =
      event.kind === 'reply'
        ? await store.peekConversation(event, event.originSmsId)
        : await store.peekConversation(event, event.smsId, statusRank[status!.status]);
    if (!view) return 'queue';
    const stepStartedAt = performance.now();
    // No claim: the commit checks that nobody holds the conversation (the empty token).
    const claim: Claim = {
      location: event.location,
      phone: event.phone,
      queue: 'inbox',
      partition: store.partitionOf(event.phone),
      token: '',
    };
    let { commit, outcome } = stepOf(event, view.record, view.origin, false);
    const save = (step: StepCommit, now: number) => store.commitDirect(event, step, now, status);
    let committed = await commitOne(commit, save);
    if (!committed.result.ok && committed.result.reason === 'suppressed') {
      // A start to a phone on the suppression list: the step again, knowing it (drops it).
      ({ commit, outcome } = stepOf(event, view.record, view.origin, true));
      committed = await commitOne(commit, save);
    }
    const { result, committedAt } = committed;
    if (!result.ok) {
      return result.reason === 'duplicate' || result.reason === 'stale' ? result.reason : 'queue';
    }
    report(claim, event.id, event.kind, outcome);
    await committedStep(claim, commit, outcome, result.outbox, committedAt, stepStartedAt);
    return 'committed';
  }

  /** Commits a step with `save` (under the claim, or direct), holding a place in the sender. */
  async function commitOne<R extends CommitResult | DirectCommitResult>(
    commit: StepCommit,
    save: (step: StepCommit, now: number) => Promise<R>,
  ): Promise<{ result: R; committedAt: number }> {
    const handOff = options.outboxHandOff;
    // A place held in the sender for the outbox this commit may claim (only a commit that
    // queues messages can).
    const held = commit.outbound.length > 0 ? (handOff?.reserve(1) ?? 0) : 0;
    const committedAt = clock.now();
    let result: R;
    try {
      result = await save(held > 0 ? { ...commit, claimOutbox: { leaseMs } } : commit, committedAt);
    } catch (error) {
      handOff?.unreserve(held);
      throw error;
    }
    // No outbox claim came: the place goes back (a claim that came fills it below).
    if (!(result.ok && result.outbox)) handOff?.unreserve(held);
    return { result, committedAt };
  }

  function report(claim: Claim, eventId: string, kind: string, outcome: StepOutcome): void {
    // Most steps log nothing at the usual levels: no child logger (nor masked phone) for them.
    const quiet = !outcome.ended && !outcome.error && outcome.ignoredActions.length === 0;
    if (quiet && !logger.isLevelEnabled('debug')) return;
    const log = logger.child({
      location: claim.location,
      conversation: maskPhone(claim.phone),
      bot: outcome.botId ?? outcome.ended?.botId,
    });
    // An opt-out's end is the turn log's to say (app/log-turn.ts), with the keyword.
    if (outcome.ended && outcome.route !== 'compliance') {
      log.warn(
        { code: outcome.ended.code, detail: outcome.ended.detail, event: eventId },
        'conversation ended: it cannot resume',
      );
    }
    if (outcome.error) {
      log.error(
        { err: outcome.error, event: eventId, kind, code: 'BOT_THREW' },
        'bot threw; conversation marked errored',
      );
    } else {
      log.debug({ event: eventId, kind, route: outcome.route, reason: outcome.reason }, 'step');
    }
    if (outcome.ignoredActions.length > 0) {
      log.warn(
        { actions: outcome.ignoredActions },
        'custom actions are not run by the engine; use reply() and endConversation()',
      );
    }
  }

  return {
    start: () => consumer.start(),
    stop: () => consumer.stop(),
    direct,
    handOff: {
      leaseMs,
      reserve: (wanted) => consumer.reserve(wanted),
      offer: (claim, claimedAt) => consumer.offer(claim, claimedAt),
      unreserve: (count) => consumer.unreserve(count),
    },
  };
}
