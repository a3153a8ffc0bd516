import { randomUUID } from 'node:crypto';
import { checkStepCommit } from '../check-step-commit.ts';
import { conversationId, parseConversationId } from '../conversation-id.ts';
import { groupByPartition } from '../group-by-partition.ts';
import { mergeSentRecord, statusRecordOf } from '../message-status.ts';
import { partitionOf } from '../partition-of.ts';
import { ReadyListeners } from '../ready-listeners.ts';
import {
  type ConversationKey,
  type DeadLetter,
  type MailboxEvent,
  type MessageRecord,
  type OutboundMessage,
  statusRank,
} from '../records.ts';
import type { Claim, CommitResult, InboxView, QueueName, Store } from '../store.ts';
import { storeLimits } from '../store-limits.ts';
import { MemoryLeaseQueue } from './memory-lease-queue.ts';

export interface MemoryStoreOptions {
  partitions?: number;
  /** Makes lock tokens; inject a deterministic one in tests that look at tokens. */
  newToken?: () => string;
  /** Receives what has no caller to reject with: errors thrown by `onReady` listeners. */
  onError?: (error: unknown) => void;
}

/**
 * The embedded store: everything in process memory, lost on exit. Same semantics as the Redis
 * driver (the contract suite runs against both), including leases judged by the `now`
 * arguments. Records are kept as JSON strings, so callers never share objects with the store
 * and what comes back is exactly what Redis would give back.
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): Store {
  const partitions = options.partitions ?? 16;
  const newToken = options.newToken ?? randomUUID;
  const queues = {
    inbox: new MemoryLeaseQueue(partitions),
    outbox: new MemoryLeaseQueue(partitions),
  };
  const conversations = new Map<string, string>();
  const messages = new Map<string, string>();
  const seen = new Map<string, number>();
  const sent = new Map<string, { smsId: string; expiresAt: number }>();
  const applied = new Map<string, string[]>();
  let deadLetters: string[] = [];
  const listeners = new ReadyListeners(options.onError);
  const partitionOfPhone = (phone: string) => partitionOf(phone, partitions);
  const messageKey = (phone: string, smsId: string) => `${partitionOfPhone(phone)}:${smsId}`;
  const parse = <T>(json: string | null | undefined): T | null =>
    json ? (JSON.parse(json) as T) : null;

  const inboxView = (key: ConversationKey): InboxView => {
    const next = parse<MailboxEvent>(queues.inbox.head(conversationId(key)));
    const origin =
      next?.kind === 'reply' ? messages.get(messageKey(key.phone, next.originSmsId)) : null;
    return {
      record: parse(conversations.get(conversationId(key))),
      next,
      origin: parse<MessageRecord>(origin),
    };
  };
  const headIs = (queue: QueueName, claim: Claim, id: string) =>
    parse<{ id: string }>(queues[queue].head(conversationId(claim)))?.id === id;

  const store: Store = {
    partitions,
    partitionOf: partitionOfPhone,

    async ingest(notificationId, items, now) {
      const byPartition = groupByPartition(items, partitionOfPhone);
      let duplicates = 0;
      let pushed = 0;
      for (const [partition, group] of byPartition) {
        const seenKey = `${partition}:${notificationId}`;
        if ((seen.get(seenKey) ?? Number.NEGATIVE_INFINITY) > now) {
          duplicates++;
          continue;
        }
        seen.set(seenKey, now + storeLimits.seenTtlMs);
        let pushedHere = 0;
        for (const item of group) {
          if (item.status) {
            const update = statusRecordOf({ ...item, status: item.status });
            const key = messageKey(update.phone, update.smsId);
            const existing = parse<MessageRecord>(messages.get(key));
            if (existing && statusRank[existing.status] >= statusRank[update.status]) continue;
            messages.set(key, JSON.stringify({ ...existing, ...update }));
          }
          queues.inbox.append(
            conversationId(item.event),
            partition,
            [JSON.stringify(item.event)],
            now,
          );
          pushedHere++;
        }
        if (pushedHere > 0) listeners.emit('inbox', partition);
        pushed += pushedHere;
      }
      return { duplicate: items.length > 0 && duplicates === byPartition.size, pushed };
    },

    async claim(queue, partition, leaseMs, now) {
      const token = newToken();
      const id = queues[queue].claim(partition, leaseMs, now, token);
      if (id === null) return null;
      return { queue, partition, token, ...parseConversationId(id) };
    },

    async release(claim, now, notBefore) {
      const readyAt = Math.max(now, notBefore ?? now);
      const id = conversationId(claim);
      if (queues[claim.queue].release(id, claim.partition, claim.token, readyAt, now)) {
        listeners.emit(claim.queue, claim.partition);
      }
    },

    async readInbox(claim) {
      return inboxView(claim);
    },

    async commitStep(claim, step, now): Promise<CommitResult> {
      checkStepCommit(claim, step);
      const id = conversationId(claim);
      if (!queues.inbox.holds(id, claim.token)) return { ok: false, reason: 'lost-lock' };
      const seq = parse<{ seq: number }>(conversations.get(id))?.seq ?? 0;
      if (!headIs('inbox', claim, step.eventId) || seq !== step.expectedSeq) {
        return { ok: false, reason: 'stale' };
      }
      if (step.record) conversations.set(id, JSON.stringify(step.record));
      queues.inbox.pop(id);
      if (step.outbound.length > 0) {
        queues.outbox.append(
          id,
          claim.partition,
          step.outbound.map((m) => JSON.stringify(m)),
          now,
        );
        listeners.emit('outbox', claim.partition);
      }
      const log = [...(applied.get(id) ?? []), step.eventId];
      applied.set(id, log.slice(-storeLimits.appliedLogCap));
      queues.inbox.extend(id, claim.partition, now);
      return { ok: true, next: inboxView(claim) };
    },

    async readOutbox(claim) {
      const message = parse<OutboundMessage>(queues.outbox.head(conversationId(claim)));
      const guard = message ? sent.get(messageKey(claim.phone, message.id)) : undefined;
      return { message, sentSmsId: guard?.smsId ?? null };
    },

    async recordSent(claim, messageId, record, now) {
      const id = conversationId(claim);
      const guardKey = messageKey(claim.phone, messageId);
      if ((sent.get(guardKey)?.expiresAt ?? Number.NEGATIVE_INFINITY) <= now) {
        sent.set(guardKey, { smsId: record.smsId, expiresAt: now + storeLimits.sentGuardTtlMs });
      }
      const key = messageKey(record.phone, record.smsId);
      messages.set(key, JSON.stringify(mergeSentRecord(parse(messages.get(key)), record)));
      // The send happened whoever holds the lock now, so its facts are kept and it is popped.
      if (headIs('outbox', claim, messageId)) queues.outbox.pop(id);
      if (!queues.outbox.holds(id, claim.token)) return { ok: false, reason: 'lost-lock' };
      queues.outbox.extend(id, claim.partition, now);
      return { ok: true };
    },

    async deferOutbound(claim, messageId, attempts, notBefore) {
      const id = conversationId(claim);
      if (!queues.outbox.holds(id, claim.token)) return { ok: false, reason: 'lost-lock' };
      const head = parse<OutboundMessage>(queues.outbox.head(id));
      if (head?.id !== messageId) return { ok: false, reason: 'stale' };
      queues.outbox.replaceHead(id, JSON.stringify({ ...head, attempts }));
      // Ready again only at notBefore, so no listener is woken now.
      queues.outbox.release(id, claim.partition, claim.token, notBefore, Number.NEGATIVE_INFINITY);
      return { ok: true };
    },

    async failOutbound(claim, messageId, statusEvent, now) {
      const id = conversationId(claim);
      if (!queues.outbox.holds(id, claim.token)) return { ok: false, reason: 'lost-lock' };
      if (!headIs('outbox', claim, messageId)) return { ok: false, reason: 'stale' };
      queues.outbox.pop(id);
      queues.inbox.append(id, claim.partition, [JSON.stringify(statusEvent)], now);
      listeners.emit('inbox', claim.partition);
      queues.outbox.extend(id, claim.partition, now);
      return { ok: true };
    },

    onReady: (listener) => listeners.add(listener),

    async getConversation(key) {
      return parse(conversations.get(conversationId(key)));
    },
    async getMessage(phone, smsId) {
      return parse(messages.get(messageKey(phone, smsId)));
    },
    async listApplied(key) {
      return [...(applied.get(conversationId(key)) ?? [])];
    },
    async pendingEvents(key) {
      return queues.inbox
        .items(conversationId(key))
        .map((json) => JSON.parse(json) as MailboxEvent);
    },
    async pendingOutbound(key) {
      return queues.outbox
        .items(conversationId(key))
        .map((json) => JSON.parse(json) as OutboundMessage);
    },

    async pushDeadLetter(letter) {
      deadLetters = [JSON.stringify(letter), ...deadLetters].slice(0, storeLimits.deadLetterCap);
    },
    async listDeadLetters(limit = storeLimits.deadLetterCap) {
      return deadLetters.slice(0, limit).map((json) => JSON.parse(json) as DeadLetter);
    },

    async close() {
      listeners.clear();
    },
  };
  return store;
}
