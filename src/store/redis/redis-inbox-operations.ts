import { checkStepCommit } from '../check-step-commit.ts';
import { parseConversationId } from '../conversation-id.ts';
import { groupByPartition } from '../group-by-partition.ts';
import { statusRecordOf } from '../message-status.ts';
import {
  type ConversationKey,
  type MailboxEvent,
  type OutboundMessage,
  type ReplyEvent,
  type StatusEvent,
  statusRank,
} from '../records.ts';
import { storableJson } from '../storable-json.ts';
import type {
  Claim,
  ClaimWithView,
  DirectCommitResult,
  DirectView,
  IngestItem,
  QueueView,
  StepCommit,
  Store,
} from '../store.ts';
import { storeLimits } from '../store-limits.ts';
import { suppressionValue } from '../suppression.ts';
import { recordState } from '../transcript.ts';
import { conversationBody, directViewOf, storedTimer } from './conversation-value.ts';
import { counterChangeArgs, counterChangesJson } from './counter-changes-json.ts';
import { eventValue } from './event-value.ts';
import { messageBody, messageRecordOf } from './message-value.ts';
import { inboxViewOf, jsonOrNull, outboxViewOf } from './parse-reply.ts';
import {
  announceEvents,
  isCluster,
  messageTtl,
  type RedisStoreContext,
  withStoreErrors,
} from './redis-store-context.ts';
import { sendChecks } from './send-checks.ts';
import { transcriptListKept } from './transcript-line-with.ts';
import { valueAfterStep } from './value-after-step.ts';
import { builtOn } from './write-mark.ts';

type InboxOperations = Pick<
  Store,
  | 'ingest'
  | 'claim'
  | 'claimMany'
  | 'nextReadyAt'
  | 'release'
  | 'readInbox'
  | 'commitStep'
  | 'peekConversation'
  | 'commitDirect'
>;

/** Ingest, the lease queue operations (both queues) and the step commit, over the Lua scripts. */
export function redisInboxOperations(context: RedisStoreContext): InboxOperations {
  const { redis, keys, scripts, values } = context;

  const claimMany: Store['claimMany'] = async (queue, partition, leaseMs, now, max, options) => {
    if (!Number.isInteger(leaseMs) || leaseMs <= 0) {
      throw new RangeError(`lease ${leaseMs} ms must be a positive integer`);
    }
    if (!Number.isInteger(max) || max < 1) {
      throw new RangeError(`max ${max} must be a positive integer`);
    }
    const p = keys.partition(partition);
    const token = context.newToken();
    const scriptKeys = [
      p.ready(queue),
      p.lockPrefix(queue),
      p.listPrefix(queue),
      p.conversationPrefix,
      p.messagePrefix,
      p.unrecordedPrefix,
      p.suppressedPrefix,
      p.sendsPrefix,
    ];
    const args = [
      now,
      leaseMs,
      token,
      queue,
      max,
      messageTtl(context),
      storeLimits.dropsPerView,
      storeLimits.botBandMs,
      options?.answersOnly ? '1' : '',
      storeLimits.transcriptEntries,
    ];
    const reply = await withStoreErrors('claim', () => scripts.run('claim', scriptKeys, args));
    if (!Array.isArray(reply)) return [];
    const claims: ClaimWithView<typeof queue>[] = [];
    // Four values per claim for the inbox, five for the outbox (its view has `dropped`).
    const stride = queue === 'inbox' ? 4 : 5;
    for (let i = 0; i + stride - 1 < reply.length; i += stride) {
      const id = reply[i];
      if (typeof id !== 'string' || id === '') continue;
      const view = reply.slice(i + 1, i + stride) as unknown[];
      const key = parseConversationId(id);
      // Held by a worker now: a look reads it again (and finds it busy).
      if (queue === 'inbox') values.delete(id);
      claims.push({
        queue,
        partition,
        // The first claim gets the token; the n-th after it `<token>:<n>` (claim-8.lua).
        token: i === 0 ? token : `${token}:${i / stride}`,
        ...key,
        view: (queue === 'inbox' ? inboxViewOf(view, key) : outboxViewOf(view)) as QueueView<
          typeof queue
        >,
      });
    }
    return claims;
  };

  /** Where an outbox claim handed over by a commit goes (`commit-step-17.lua`'s reply). */
  const handedOutbox = (
    key: ConversationKey,
    partition: number,
    token: string,
    view: unknown[],
  ): ClaimWithView<'outbox'> | undefined => {
    const message = jsonOrNull<OutboundMessage>(view[4]);
    const dropped = jsonOrNull<unknown[]>(view[6]);
    if (!message && !dropped) return undefined;
    return {
      queue: 'outbox',
      partition,
      token,
      location: key.location,
      phone: key.phone,
      view: outboxViewOf([view[4], view[5], '', view[6]]),
    };
  };

  /**
   * The keys and arguments of `commit-step-17.lua` for a step: under a claim's token, or direct
   * (the empty token, the event's JSON last).
   */
  const stepCall = (
    token: string,
    key: ConversationKey,
    step: StepCommit,
    now: number,
    directEventJson?: string,
  ) => {
    const c = keys.conversation(key);
    const scriptKeys = [
      c.lock('inbox'),
      c.list('inbox'),
      c.record,
      c.ready('inbox'),
      c.list('outbox'),
      c.ready('outbox'),
      c.messagePrefix,
      c.timers,
      c.lock('outbox'),
      c.suppressed,
      c.sends,
      c.resultPrefix,
      c.resultsPrefix,
      c.countersPrefix,
      c.recipientsPrefix,
      c.events,
      c.eventsDue,
    ];
    const outboxToken = step.claimOutbox ? context.newToken() : '';
    const timers = step.timers ?? { set: [], cancel: [] };
    const { retention } = context;
    const args = [
      token,
      step.eventId,
      step.expectedSeq,
      step.record ? conversationBody(step.record) : '',
      step.record?.seq ?? 0,
      now,
      storeLimits.appliedLogCap,
      c.id,
      keys.readyChannel,
      c.readyMessage('outbox'),
      outboxToken,
      step.claimOutbox?.leaseMs ?? 0,
      step.outbound.length,
      ...step.outbound.map((message) => storableJson(message)),
      timers.set.length > 0
        ? storableJson(timers.set.map((timer) => storedTimer(timer, step.record?.runId)))
        : '',
      timers.cancel.length > 0 ? storableJson(timers.cancel) : '',
      // An ended conversation is kept for the retention; an active one until it ends, and
      // an opted-out phone's record until it opts in (it is what keeps any conversation
      // from starting: compliance, like the suppressed: key).
      step.record && step.record.status !== 'active' && !step.record.suppressed
        ? retention.conversationsMs
        : 0,
      storeLimits.appliedWindowMs,
      step.suppression ?? '',
      step.suppression === 'add'
        ? suppressionValue({ at: now, reason: step.suppressionReason, source: 'stop' })
        : '',
      messageTtl(context),
      storeLimits.dropsPerView,
      step.results?.length
        ? storableJson(
            step.results.map((result) => ({
              runId: result.runId,
              botId: result.bot,
              score: result.endedAt ?? result.startedAt,
              json: storableJson(result),
            })),
          )
        : '',
      retention.resultsMs,
      step.outbound.some((m) => !(m.holdUntil !== undefined && m.holdUntil > now)) ? '1' : '',
      counterChangesJson(step.counters),
      step.recipient
        ? storableJson({
            k: `${step.recipient.campaign}:${step.recipient.start.chunk}`,
            c: `camp:${step.recipient.campaign}`,
            r: step.recipient.start.row,
            v: step.recipient.start.revision,
            s: step.recipient.state,
            why: step.recipient.reason,
          })
        : '',
      step.unlessSuppressed ? '1' : '',
      retention.conversationsMs,
      // The state a reply's step left, for its transcript entry (the script knows the reply).
      step.record ? storableJson(recordState(step.record)) : '',
      storeLimits.transcriptEntries,
      step.events?.length
        ? storableJson(step.events.map((event) => [event.id, eventValue(event, now)]))
        : '',
      ...(directEventJson === undefined ? [] : [directEventJson]),
    ];
    return { keys: scriptKeys, args, outboxToken, id: c.id };
  };

  /**
   * A direct step committed with its value built here (value-after-step.ts) and written by
   * `commit-direct-11.lua` when it is still the value the step was computed on (read by the
   * turn's `peekConversation`); undefined when the step is not of that usual kind, or the value
   * moved meanwhile: `commit-step-17.lua` merges it then.
   */
  const commitBuilt = async (
    claim: Claim,
    event: ReplyEvent | StatusEvent,
    step: StepCommit,
    now: number,
    fields?: IngestItem['status'],
  ): Promise<DirectCommitResult | undefined> => {
    const c = keys.conversation(claim);
    const known = values.get(c.id);
    // A look from that value: what the commit answers says whether it was still Redis's.
    const looked = values.lookChecked(c.id);
    if (known === undefined || !builtStep(step, now)) return undefined;
    const built = valueAfterStep(
      known,
      event,
      step,
      now,
      context.retention.conversationsMs,
      fields,
    );
    if (built === 'duplicate') {
      // Known from a write of this process still in flight (a redelivery racing the request
      // that brought the event first): not applied yet. The merging script, run after that
      // write, answers what became of it.
      if (values.inFlight(c.id)) return undefined;
      return { ok: false, reason: 'duplicate' };
    }
    if (built === undefined || built === 'stale') return undefined;
    const first = step.outbound[0];
    const guard = first?.loopGuard;
    const checks = sendChecks(first);
    const outboxToken = step.claimOutbox && first ? context.newToken() : '';
    const scriptKeys = [
      c.lock('inbox'),
      c.list('inbox'),
      c.record,
      c.transcript(),
      c.list('outbox'),
      c.lock('outbox'),
      c.ready('outbox'),
      c.suppressed,
      c.sends,
      c.timers,
      c.countersPrefix,
    ];
    const args = [
      builtOn(known),
      built.value,
      built.ttlMs,
      c.id,
      now,
      outboxToken,
      step.claimOutbox?.leaseMs ?? 0,
      built.armAt ?? '',
      built.timersGone ? '1' : '',
      keys.readyChannel,
      c.readyMessage('outbox'),
      context.retention.conversationsMs,
      checks,
      guard?.max ?? '',
      guard?.windowMs ?? '',
      transcriptListKept(),
      built.spilled.length,
      ...built.spilled,
      step.outbound.length,
      ...step.outbound.map((message) => storableJson(message)),
      ...counterChangeArgs(step.counters),
    ];
    // What the send of its messages builds its value on (recordSent), from the moment it is
    // sent: a send recorded while this call is in flight runs after it.
    const mark = values.sent(c.id, built.value);
    let status: string;
    let handed: number | undefined;
    try {
      [status, handed] = (await withStoreErrors('commitDirect', () =>
        scripts.run('commit-direct', scriptKeys, args),
      )) as [string, number?];
    } catch (error) {
      values.settled(c.id, mark, false);
      throw error;
    }
    values.settled(c.id, mark, status === 'ok');
    if (looked) values.checked(status === 'ok');
    if (status === 'busy') return { ok: false, reason: 'busy' };
    // A look from a value known here that has moved since: mostly another process's commit,
    // which the merging script would refuse as stale too. The value is forgotten (settled
    // above), so the caller's next look reads it.
    if (looked && status === 'moved') return { ok: false, reason: 'stale' };
    if (status !== 'ok') return undefined;
    if (handed !== 1 || !first) return { ok: true };
    return {
      ok: true,
      outbox: {
        queue: 'outbox',
        partition: claim.partition,
        token: outboxToken,
        location: claim.location,
        phone: claim.phone,
        view: { message: first, sentSmsId: null },
      },
    };
  };

  /**
   * The direct view of a reply (`peekConversation`). From the value this process knows, with no
   * call, while such values mostly held (`values.trusted`): the commit checks that the value is
   * still Redis's and that nobody holds the conversation, and counts the check. A GET when the
   * origin's record is not in that value's messages line. Else two plain reads in one write, the
   * value and whether the conversation is busy, which check the value known too.
   */
  const peekReply = async (
    key: ConversationKey,
    originSmsId: string | undefined,
  ): Promise<DirectView | null> => {
    const c = keys.conversation(key);
    const known = values.get(c.id);
    if (known !== undefined && values.trusted()) {
      const view = directViewOf(known, key, originSmsId);
      values.looked(c.id);
      if (originSmsId === undefined) return { record: view?.record ?? null, origin: null };
      const own =
        view?.message ??
        (await withStoreErrors('peekConversation', () => redis.get(c.message(originSmsId))));
      return {
        record: view?.record ?? null,
        origin: messageRecordOf(own, originSmsId, key.phone, key.location),
      };
    }
    const mark = values.mark(c.id);
    // Two plain reads, sent in the same write (no pipeline object: ioredis's costs more CPU
    // than the reads): nothing for Redis to run but the reads.
    const [[stored, own], busy] = await withStoreErrors('peekConversation', () =>
      Promise.all([
        redis.mget(c.record, c.message(originSmsId ?? '')),
        redis.exists(c.lock('inbox'), c.list('inbox')),
      ]),
    );
    const value = typeof stored === 'string' ? stored : '';
    if (known !== undefined) values.checked(busy === 0 && value === known);
    if (busy !== 0) return null;
    // What the direct commit builds its value on (commitDirect), unless a write of this
    // process was sent meanwhile: the value it set is the newer one (value-cache.ts).
    values.setUnlessChanged(c.id, value, mark);
    const read = directViewOf(stored, key, originSmsId);
    const origin =
      originSmsId === undefined
        ? null
        : messageRecordOf(read?.message ?? own, originSmsId, key.phone, key.location);
    return { record: read?.record ?? null, origin };
  };

  /**
   * A status's direct view from `known`, the value this process last wrote or read: only when
   * it holds the status's sms, recorded as sent, at a rank below the status's (the entry the
   * direct commit moves, valueAfterStep). Not checked for busy: the commit checks that, and that
   * the value is still this one. Null otherwise: a status of an sms a known value does not hold
   * mostly overtook the send's record (ingest keeps it for it), and a read to find out would
   * cost the call the direct path saves.
   */
  const statusView = (
    key: ConversationKey,
    known: string,
    smsId: string | undefined,
    moveBelow: number,
  ): DirectView | null => {
    if (known === '' || smsId === undefined) return null;
    const read = directViewOf(known, key, smsId);
    const entry = read?.message;
    if (!read || entry === undefined || entry[1] !== '1' || Number(entry[0]) >= moveBelow) {
      return null;
    }
    return {
      record: read.record,
      origin: messageRecordOf(entry, smsId, key.phone, key.location),
    };
  };

  return {
    async ingest(_notificationId, items, now, claimFor) {
      if (items.length === 0) return { duplicate: false, pushed: 0 };
      const tokenBase = claimFor ? context.newToken() : '';
      const claimMax = claimFor?.max ?? 0;
      // One script call per partition, all in one pipeline: one round trip for the notification.
      const calls: Array<{ keys: string[]; args: (string | number)[] }> = [];
      const partitionsAsked: number[] = [];
      for (const [partition, group] of groupByPartition(items, context.partitionOf)) {
        const p = keys.partition(partition);
        const args: (string | number)[] = [
          now,
          storeLimits.appliedWindowMs,
          keys.readyChannel,
          p.readyMessage('inbox'),
          storeLimits.earlyStatusTtlMs,
          claimMax > 0 ? claimFor!.leaseMs : 0,
          claimMax,
          // Tokens `<base>:<n>` per partition: unique across the partitions' calls too.
          `${tokenBase}:${partition}`,
          storeLimits.unknownMessageTtlMs,
          storeLimits.unknownMessagesCap,
          storeLimits.earlyStatusCap,
          storeLimits.unrecordedCap,
        ];
        // Each partition may claim them all: the caller's worker refuses what it cannot take.
        for (const item of group) {
          const update = item.status ? statusRecordOf({ ...item, status: item.status }) : null;
          const id = keys.conversation(item.event).id;
          // Its mailbox holds an event now, or its value moves in Lua: a look reads it again.
          values.delete(id);
          args.push(
            id,
            mailboxEventJson(item.event),
            update?.smsId ?? '',
            update ? statusRank[update.status] : 0,
            update ? messageBody(update) : '',
            item.body ?? '',
          );
        }
        const scriptKeys = [
          p.ready('inbox'),
          p.listPrefix('inbox'),
          p.messagePrefix,
          p.earlyStatusPrefix,
          p.unrecordedPrefix,
          p.lockPrefix('inbox'),
          p.conversationPrefix,
          p.unknownMessages,
          p.listPrefix('outbox'),
        ];
        calls.push({ keys: scriptKeys, args });
        partitionsAsked.push(partition);
      }
      type Reply = [number, number, number, ...unknown[]];
      const replies = await withStoreErrors('ingest', async () => {
        // One partition (the usual notification): one call, without building a pipeline.
        if (calls.length === 1) {
          return [(await scripts.run('ingest', calls[0]!.keys, calls[0]!.args)) as Reply];
        }
        // On a Cluster a pipeline must stay on one node: one call per partition (each one slot),
        // all sent at once; the calls of one tick still leave in one write per master.
        if (isCluster(redis)) {
          const run = (call: (typeof calls)[number]) => scripts.run('ingest', call.keys, call.args);
          return (await Promise.all(calls.map(run))) as Reply[];
        }
        const pipeline = redis.pipeline();
        for (const call of calls) scripts.queue(pipeline, 'ingest', call.keys, call.args);
        const results = (await pipeline.exec()) ?? [];
        const failed = results.find(([error]) => error);
        if (failed) throw failed[0];
        return results.map(([, reply]) => reply as Reply);
      });
      const claims: ClaimWithView<'inbox'>[] = [];
      // A status of a send in doubt was taken in: the service still reports such sends. Kept
      // for the location after the ingest (another slot on a Cluster); a hint, so a failure to
      // keep it fails nothing (the in-doubt messages then wait for their grace only).
      if (replies.some(([, , heard]) => heard === 1)) {
        const locations = new Set(items.filter((item) => item.body).map((i) => i.event.location));
        await Promise.all(
          [...locations].map((location) =>
            redis
              .set(keys.inDoubtHeard(location), now, 'PX', storeLimits.earlyStatusTtlMs)
              .catch(() => undefined),
          ),
        );
      }
      replies.forEach(([, , , ...claimed], index) => {
        for (let i = 0; i + 4 < claimed.length; i += 5) {
          const key = parseConversationId(String(claimed[i]));
          claims.push({
            queue: 'inbox',
            partition: partitionsAsked[index]!,
            token: String(claimed[i + 1]),
            ...key,
            view: inboxViewOf(claimed.slice(i + 2, i + 5), key),
          });
        }
      });
      return {
        duplicate: replies.every(([duplicate]) => duplicate === 1),
        pushed: replies.reduce((sum, [, pushed]) => sum + pushed, 0),
        ...(claims.length > 0 && { claims }),
      };
    },

    async claim(queue, partition, leaseMs, now) {
      return (await claimMany(queue, partition, leaseMs, now, 1))[0] ?? null;
    },

    claimMany,

    async nextReadyAt(queue, partition) {
      const ready = keys.partition(partition).ready(queue);
      if (queue === 'inbox') {
        const [, score] = await withStoreErrors('nextReadyAt', () =>
          redis.zrange(ready, '0', '0', 'WITHSCORES'),
        );
        return score === undefined ? null : Number(score);
      }
      // The outbox's two bands: the earliest of each, the bot-initiated one at its own time.
      const band = storeLimits.botBandMs;
      const [[, answer], [, bot]] = await withStoreErrors('nextReadyAt', () =>
        Promise.all([
          redis.zrangebyscore(ready, '-inf', `(${band}`, 'WITHSCORES', 'LIMIT', 0, 1),
          redis.zrangebyscore(ready, band, '+inf', 'WITHSCORES', 'LIMIT', 0, 1),
        ]),
      );
      const times = [
        ...(answer === undefined ? [] : [Number(answer)]),
        ...(bot === undefined ? [] : [Number(bot) - band]),
      ];
      return times.length === 0 ? null : Math.min(...times);
    },

    async release(claim, now, notBefore) {
      const c = keys.conversation(claim);
      const readyAt = Math.max(now, notBefore ?? now);
      const scriptKeys = [c.lock(claim.queue), c.list(claim.queue), c.ready(claim.queue)];
      const args = [
        claim.token,
        c.id,
        readyAt,
        now,
        keys.readyChannel,
        c.readyMessage(claim.queue),
      ];
      await withStoreErrors('release', () => scripts.run('release', scriptKeys, args));
    },

    async readInbox(claim) {
      const c = keys.conversation(claim);
      const reply = await withStoreErrors('readInbox', () =>
        scripts.run('read-inbox', [c.record, c.list('inbox'), c.messagePrefix], []),
      );
      return inboxViewOf(reply as unknown[], claim);
    },

    async commitStep(claim, step, now) {
      checkStepCommit(claim, step);
      const call = stepCall(claim.token, claim, step, now);
      // A step that writes nothing but its event (a delivery report no bot state moves on)
      // leaves the value as it was: what this process knew of it stays.
      if (writesValue(step)) values.delete(call.id);
      const [status, ...view] = (await withStoreErrors('commitStep', () =>
        scripts.run('commit-step', call.keys, call.args),
      )) as unknown[];
      if (status === 'lost-lock' || status === 'stale' || status === 'suppressed') {
        return { ok: false, reason: status };
      }
      if (step.events?.length) announceEvents(context, claim.partition);
      const next = inboxViewOf(view, claim);
      // The script sends the record back only when the step left it as it was.
      if (step.record) next.record = step.record;
      const outbox = handedOutbox(claim, claim.partition, call.outboxToken, view);
      return { ok: true, next, released: view[3] === 1, ...(outbox && { outbox }) };
    },

    async peekConversation(key, originSmsId, moveBelow) {
      if (moveBelow === undefined) return peekReply(key, originSmsId);
      const id = keys.conversation(key).id;
      const known = values.get(id);
      // What this process knows first (no call), checked by the commit as a reply's look is;
      // read when it knows nothing of the value, or while such looks were often stale.
      if (known !== undefined && values.trusted()) {
        const view = statusView(key, known, originSmsId, moveBelow);
        if (view) values.looked(id);
        return view;
      }
      if (!(await peekReply(key, originSmsId))) return null;
      const read = values.get(id);
      return read === undefined ? null : statusView(key, read, originSmsId, moveBelow);
    },

    async commitDirect(event, step, now, fields) {
      const { location, phone } = event;
      const partition = context.partitionOf(phone);
      const claim = { location, phone, queue: 'inbox' as const, partition, token: '' };
      checkStepCommit(claim, step);
      if (step.eventId !== event.id) {
        throw new TypeError(`a direct commit of event '${event.id}' names '${step.eventId}'`);
      }
      if (event.kind === 'status') {
        if (!fields) {
          throw new TypeError(`a direct commit of status '${event.id}' needs its record fields`);
        }
        // Built or not at all: the merging script does not move message records (ingest does).
        const built = await commitBuilt(claim, event, step, now, fields);
        return built?.ok ? built : { ok: false, reason: 'busy' };
      }
      const built = await commitBuilt(claim, event, step, now);
      if (built) return built;
      const call = stepCall('', claim, step, now, mailboxEventJson(event));
      values.delete(call.id);
      const [status, ...view] = (await withStoreErrors('commitDirect', () =>
        scripts.run('commit-step', call.keys, call.args),
      )) as unknown[];
      if (
        status === 'busy' ||
        status === 'duplicate' ||
        status === 'stale' ||
        status === 'suppressed'
      ) {
        return { ok: false, reason: status };
      }
      if (step.events?.length) announceEvents(context, partition);
      const outbox = handedOutbox(claim, claim.partition, call.outboxToken, view);
      return { ok: true, ...(outbox && { outbox }) };
    },
  };
}

/**
 * A mailbox event's JSON with its id, kind and receivedAt first, in that order: the scripts read
 * them off its start (`lib/event-start.lua`) rather than decode it. Readers parse the JSON, so
 * the order changes nothing for them.
 */
export function mailboxEventJson(event: MailboxEvent): string {
  const { id, kind, receivedAt, ...rest } = event;
  return storableJson({ id, kind, receivedAt, ...rest });
}

/**
 * Whether `commit-direct-11.lua` commits this step as it is: a new record, messages that may go
 * now, and none of the rarer writes (results, events, a campaign recipient, an opt-out or
 * opt-in, a start that the suppression list may refuse), which the merging script makes.
 */
function builtStep(step: StepCommit, now: number): boolean {
  return (
    step.record !== null &&
    !step.results?.length &&
    !step.events?.length &&
    !step.recipient &&
    !step.suppression &&
    !step.unlessSuppressed &&
    step.outbound.every((message) => !(message.holdUntil !== undefined && message.holdUntil > now))
  );
}

/**
 * Whether a commit may change the conversation's value beyond its applied log: a record,
 * timers, messages (whose drops go to its transcript) or an opt-out or opt-in.
 */
function writesValue(step: StepCommit): boolean {
  return (
    step.record !== null ||
    (step.timers !== undefined && step.timers.set.length + step.timers.cancel.length > 0) ||
    step.outbound.length > 0 ||
    step.suppression !== undefined
  );
}
