import { checkStepCommit } from '../check-step-commit.ts';
import { conversationId, parseConversationId } from '../conversation-id.ts';
import { groupByPartition } from '../group-by-partition.ts';
import { statusRecordOf } from '../message-status.ts';
import {
  type MailboxEvent,
  type MessageRecord,
  type OutboundMessage,
  statusRank,
} from '../records.ts';
import { storableJson } from '../storable-json.ts';
import type { Claim, ClaimWithView, QueueView, StepCommit, Store } from '../store.ts';
import { storeLimits } from '../store-limits.ts';
import { suppressionValue } from '../suppression.ts';
import { recordState } from '../transcript.ts';
import { skipStartedRecipient } from './memory-campaign-operations.ts';
import { type MemoryState, parse } from './memory-state.ts';
import { outboxBands } from './outbox-bands.ts';

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

/** How many ingests pass between sweeps of expired sent guards, early status lists and unrecorded sends. */
const sweepEvery = 1_000;

/** Ingest, the lease queue operations (both queues) and the step commit, as the Redis scripts do them. */
export function memoryInboxOperations(state: MemoryState, newToken: () => string): InboxOperations {
  const { queues, listeners } = state;
  let ingests = 0;

  const claimMany: Store['claimMany'] = async (queue, partition, leaseMs, now, max, options) => {
    if (!Number.isInteger(leaseMs) || leaseMs <= 0) {
      throw new RangeError(`lease ${leaseMs} ms must be a positive integer`);
    }
    if (!Number.isInteger(max) || max < 1) {
      throw new RangeError(`max ${max} must be a positive integer`);
    }
    const claims: ClaimWithView<typeof queue>[] = [];
    const bands =
      queue === 'outbox' ? { ...outboxBands, answersOnly: options?.answersOnly } : undefined;
    while (claims.length < max) {
      const token = newToken();
      const taken = queues[queue].claim(partition, leaseMs, now, token, bands);
      if (taken === null) break;
      const key = parseConversationId(taken.id);
      // The first view, read with the claim as the Redis script does.
      const view =
        queue === 'inbox'
          ? state.inboxView(key)
          : state.claimedOutboxView(key, taken.takenOver, now);
      claims.push({ queue, partition, token, ...key, view: view as QueueView<typeof queue> });
    }
    return claims;
  };

  /**
   * What a committed step writes, as commit-step-17.lua writes it (the checks and the mailbox
   * are the caller's): record, transcript, results, counters, events, suppression, outbox and
   * its claim for the caller's sender, timers, applied log. Answers the outbox claim, if any.
   */
  function applyStep(
    claim: Claim,
    head: MailboxEvent | null,
    step: StepCommit,
    now: number,
  ): ClaimWithView<'outbox'> | undefined {
    const id = conversationId(claim);
    const headKind = head?.kind;
    if (step.record) state.conversations.set(id, storableJson(step.record));
    // As commit-step-17.lua: a reply the step wrote a record for, with the state it left.
    if (step.record && head?.kind === 'reply') {
      const entry = {
        at: head.receivedAt,
        body: head.body,
        stateAfter: recordState(step.record),
      };
      state.addTranscriptEntry(id, { direction: 'in', ...entry });
    }
    for (const result of step.results ?? []) {
      state.results.set(result.runId, storableJson(result));
    }
    state.changeCounters(claim.partition, step.counters);
    if (step.events) state.eventOutboxes[claim.partition]!.queue(step.events, now);
    if (step.recipient) skipStartedRecipient(state, claim.partition, step.recipient);
    // Before the outbox is read: an opt-out's own confirmation goes out, nothing else does.
    if (step.suppression === 'add') {
      const reason = step.suppressionReason;
      state.suppressed.set(id, suppressionValue({ at: now, reason, source: 'stop' }));
    }
    if (step.suppression === 'remove') state.suppressed.delete(id);
    let outbox: ClaimWithView<'outbox'> | undefined;
    if (step.outbound.length > 0) {
      const wasEmpty = queues.outbox.items(id).length === 0;
      const held = (m: OutboundMessage | null) => (m?.holdUntil ?? Number.NEGATIVE_INFINITY) > now;
      // A message that may go now passes those held for quiet hours: an outbox nobody holds,
      // waiting for its held head, is made ready now (as commit-step-17.lua does).
      let madeReady = false;
      if (!wasEmpty && step.outbound.some((m) => !held(m)) && held(state.head('outbox', claim))) {
        madeReady = queues.outbox.readyBy(id, claim.partition, now);
      }
      const outbound = step.outbound.map((message) => storableJson(message));
      if (queues.outbox.append(id, claim.partition, outbound, now)) madeReady = true;
      const lease = wasEmpty ? step.claimOutbox?.leaseMs : undefined;
      const token = lease ? newToken() : '';
      if (lease && queues.outbox.claimId(id, claim.partition, lease, now, token)) {
        // Handed to the caller's sender: claimed, not announced, as the Redis script does.
        outbox = {
          queue: 'outbox',
          partition: claim.partition,
          token,
          ...parseConversationId(id),
          view: state.outboxView(claim, now),
        };
      } else if (madeReady) {
        // As the Redis script: announced only when this made the outbox ready sooner.
        listeners.emit('outbox', claim.partition);
      }
    }
    const timers = state.timersOf(claim.partition);
    for (const timer of step.timers?.set ?? []) timers.set(id, timer);
    const armedAt = Math.min(...(step.timers?.set ?? []).map((timer) => timer.dueAt));
    if (Number.isFinite(armedAt) && state.timerListeners.size > 0) {
      const partition = claim.partition;
      queueMicrotask(() => {
        for (const listener of state.timerListeners) listener(partition, armedAt);
      });
    }
    for (const timerId of step.timers?.cancel ?? []) timers.cancel(id, timerId);
    // The applied log, as commit-step-17.lua keeps it: bounded by count and time, statuses
    // left out (their record's rank already keeps them once).
    if (headKind !== 'status') {
      const log = state.applied.get(id);
      const ids = log && now - log.at <= storeLimits.appliedWindowMs ? log.ids : [];
      state.applied.set(id, {
        at: now,
        ids: [...ids, step.eventId].slice(-storeLimits.appliedLogCap),
      });
    }
    return outbox;
  }

  return {
    async ingest(_notificationId, items, now, claimFor) {
      if (++ingests % sweepEvery === 0) state.sweep(now);
      const byPartition = groupByPartition(items, (phone) => state.partitionOf(phone));
      let duplicates = 0;
      let pushed = 0;
      const claims: ClaimWithView<'inbox'>[] = [];
      for (const [partition, group] of byPartition) {
        // As ingest-9.lua: an event already in its mailbox or its recent applied log is not
        // taken again; a status moves its record at most once.
        const known = (id: string, eventId: string) => {
          const log = state.applied.get(id);
          if (log && now - log.at <= storeLimits.appliedWindowMs && log.ids.includes(eventId)) {
            return true;
          }
          return queues.inbox.items(id).some((json) => parse<{ id: string }>(json)?.id === eventId);
        };
        let taken = 0;
        let pushedHere = 0;
        let fresh = 0;
        const claimedHere: Array<{ id: string; token: string }> = [];
        for (const item of group) {
          if (!item.status && known(conversationId(item.event), item.event.id)) {
            taken++;
            continue;
          }
          if (item.status) {
            const update = statusRecordOf({ ...item, status: item.status });
            const key = state.inPartition(update.phone, update.smsId);
            const existing = parse<MessageRecord>(state.messages.get(key));
            if (existing && statusRank[existing.status] >= statusRank[update.status]) continue;
            state.messages.set(key, storableJson({ ...existing, ...update }));
            if (!state.recordedSent.has(key)) {
              // The status overtook recordSent: it waits for it, which gives it the run.
              state.earlyStatuses.set(key, {
                events: [...state.earlyStatusesOf(key, now), storableJson(item.event)],
                expiresAt: now + storeLimits.earlyStatusTtlMs,
              });
              // Where a takeover finds the sms id of a send its dead holder never recorded.
              if (item.body) {
                const id = conversationId(item.event);
                const bodies = state.unrecordedOf(id, now) ?? new Map<string, string>();
                bodies.set(item.body, update.smsId);
                state.unrecorded.set(id, {
                  bodies,
                  expiresAt: now + storeLimits.earlyStatusTtlMs,
                });
                // As ingest-9.lua: the status of a send of the outbox's head in doubt.
                const head = state.head<OutboundMessage>('outbox', item.event);
                const inDoubt =
                  head?.inDoubtSince !== undefined || head?.inDoubtUntil !== undefined;
                if (inDoubt && head?.body === item.body) {
                  state.inDoubtHeard.set(item.event.location, {
                    at: now,
                    expiresAt: now + storeLimits.earlyStatusTtlMs,
                  });
                }
              }
              continue;
            }
          }
          const id = conversationId(item.event);
          const madeReady = queues.inbox.append(id, partition, [storableJson(item.event)], now);
          pushedHere++;
          // Claimed for the caller's worker, as the Redis script does: not announced.
          const token = newToken();
          if (
            madeReady &&
            claimFor &&
            claimedHere.length < claimFor.max &&
            queues.inbox.claimId(id, partition, claimFor.leaseMs, now, token)
          ) {
            claimedHere.push({ id, token });
          } else if (madeReady) {
            fresh++;
          }
        }
        // As the Redis script: announced unless other conversations were already due there.
        if (fresh > 0 && queues.inbox.dueCount(partition, now) <= fresh) {
          listeners.emit('inbox', partition);
        }
        if (taken === group.length) {
          duplicates++;
          continue;
        }
        pushed += pushedHere;
        for (const { id, token } of claimedHere) {
          const key = parseConversationId(id);
          claims.push({ queue: 'inbox', partition, token, ...key, view: state.inboxView(key) });
        }
      }
      return {
        duplicate: items.length > 0 && duplicates === byPartition.size,
        pushed,
        ...(claims.length > 0 && { claims }),
      };
    },

    async claim(queue, partition, leaseMs, now) {
      return (await claimMany(queue, partition, leaseMs, now, 1))[0] ?? null;
    },

    claimMany,

    async nextReadyAt(queue, partition) {
      return queues[queue].earliestReady(
        partition,
        queue === 'outbox' ? outboxBands.botBandMs : undefined,
      );
    },

    async release(claim, now, notBefore) {
      const readyAt = Math.max(now, notBefore ?? now);
      const id = conversationId(claim);
      if (queues[claim.queue].release(id, claim.partition, claim.token, readyAt, now)) {
        listeners.emit(claim.queue, claim.partition);
      }
    },

    async readInbox(claim) {
      return state.inboxView(claim);
    },

    async commitStep(claim, step, now) {
      checkStepCommit(claim, step);
      const id = conversationId(claim);
      if (!queues.inbox.holds(id, claim.token)) return { ok: false, reason: 'lost-lock' };
      const seq = parse<{ seq: number }>(state.conversations.get(id))?.seq ?? 0;
      if (!state.headIs('inbox', claim, step.eventId) || seq !== step.expectedSeq) {
        return { ok: false, reason: 'stale' };
      }
      // A start to a phone on the suppression list: nothing changes (the engine runs it again).
      if (step.unlessSuppressed && state.suppressed.has(id))
        return { ok: false, reason: 'suppressed' };
      const head = state.head<MailboxEvent>('inbox', claim);
      queues.inbox.pop(id);
      const outbox = applyStep(claim, head, step, now);
      // The drain is over when the mailbox is empty: released here, as the Redis script does.
      if (queues.inbox.items(id).length === 0) {
        queues.inbox.release(id, claim.partition, claim.token, now, now);
        return {
          ok: true,
          next: state.inboxView(claim),
          released: true,
          ...(outbox && { outbox }),
        };
      }
      queues.inbox.extend(id, claim.partition, now);
      return { ok: true, next: state.inboxView(claim), released: false, ...(outbox && { outbox }) };
    },

    async peekConversation(key, originSmsId, statusRank) {
      // No direct path for statuses here: ingest moves their records (the same outcome).
      if (statusRank !== undefined) return null;
      const id = conversationId(key);
      if (queues.inbox.items(id).length > 0 || queues.inbox.locked(id)) return null;
      const view = state.inboxView(key);
      const origin =
        originSmsId === undefined
          ? null
          : parse<MessageRecord>(state.messages.get(state.inPartition(key.phone, originSmsId)));
      return { record: view.record, origin: origin ?? null };
    },

    async commitDirect(event, step, now) {
      const { location, phone } = event;
      const partition = state.partitionOf(phone);
      const claim = { location, phone, queue: 'inbox' as const, partition, token: '' };
      checkStepCommit(claim, step);
      if (step.eventId !== event.id) {
        throw new TypeError(`a direct commit of event '${event.id}' names '${step.eventId}'`);
      }
      // Its peek never answers a status: one that comes here goes through ingest.
      if (event.kind !== 'reply') return { ok: false, reason: 'busy' };
      const id = conversationId(claim);
      // As commit-step-17.lua's direct mode: busy, then a redelivery, then the fencing.
      if (queues.inbox.items(id).length > 0 || queues.inbox.locked(id)) {
        return { ok: false, reason: 'busy' };
      }
      const log = state.applied.get(id);
      if (log && now - log.at <= storeLimits.appliedWindowMs && log.ids.includes(event.id)) {
        return { ok: false, reason: 'duplicate' };
      }
      const seq = parse<{ seq: number }>(state.conversations.get(id))?.seq ?? 0;
      if (seq !== step.expectedSeq) return { ok: false, reason: 'stale' };
      if (step.unlessSuppressed && state.suppressed.has(id))
        return { ok: false, reason: 'suppressed' };
      const outbox = applyStep(claim, event, step, now);
      return { ok: true, ...(outbox && { outbox }) };
    },
  };
}
