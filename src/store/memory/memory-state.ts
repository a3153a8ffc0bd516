import { conversationId } from '../conversation-id.ts';
import { partitionOf } from '../partition-of.ts';
import type { ReadyListeners } from '../ready-listeners.ts';
import {
  type ConversationKey,
  type DroppedMessage,
  droppedSmsId,
  type MailboxEvent,
  type MessageRecord,
  type OutboundMessage,
} from '../records.ts';
import { storableJson } from '../storable-json.ts';
import type { CounterChange, InboxView, OutboxView, QueueName } from '../store.ts';
import { storeLimits } from '../store-limits.ts';
import type { StoredTranscriptEntry } from '../transcript.ts';
import { MemoryEventOutbox } from './memory-event-outbox.ts';
import { MemoryLeaseQueue } from './memory-lease-queue.ts';
import { MemoryTimers } from './memory-timers.ts';

/** One campaign in one partition, shaped like its Redis keys. */
export interface CampaignPart {
  /** chunk → row → recipient value (recipient-value.ts) */
  chunks: Map<number, Map<string, string>>;
  /** chunk → earliest due of a waiting recipient */
  chunkDue: Map<number, number>;
  /** 'active' when undefined, 'paused' or 'cancelled' */
  state: string | undefined;
}

/** Parses a stored JSON string; the memory store keeps JSON so callers never share its objects. */
export const parse = <T>(json: string | null | undefined): T | null =>
  json ? (JSON.parse(json) as T) : null;

/**
 * Everything the memory store holds, shaped like the Redis keys: per-partition names for the
 * structures Redis keeps under a partition's hash tag (message records, sent guards).
 */
export class MemoryState {
  readonly queues: Record<QueueName, MemoryLeaseQueue>;
  /** conversation id → record JSON */
  readonly conversations = new Map<string, string>();
  /** `<partition>:<smsId>` → message record JSON */
  readonly messages = new Map<string, string>();
  /** `<partition>:<smsId>` of the message records `recordSent` wrote (the Redis `sent` field) */
  readonly recordedSent = new Set<string>();
  /** `<partition>:<smsId>` → status event JSON that came before `recordSent`, oldest first, and expiry (ms) */
  readonly earlyStatuses = new Map<string, { events: string[]; expiresAt: number }>();
  /** conversation id → body → sms id of statuses for an sms not recorded as sent, and expiry (ms) */
  readonly unrecorded = new Map<string, { bodies: Map<string, string>; expiresAt: number }>();
  /** location → when the latest status of a send in doubt came (ms), and expiry (ms) */
  readonly inDoubtHeard = new Map<string, { at: number; expiresAt: number }>();
  /** `<partition>:<outboxMessageId>` → sms id and expiry (ms) */
  readonly sent = new Map<string, { smsId: string; expiresAt: number }>();
  /** conversation id of a phone that opted out → its suppression's value (`suppressionValue`) */
  readonly suppressed = new Map<string, string>();
  /** conversation id → times (ms) of the last sends to the phone, newest first, and expiry (ms) */
  readonly sends = new Map<string, { times: number[]; expiresAt: number }>();
  /** run id → result JSON */
  readonly results = new Map<string, string>();
  /** conversation id → the applied log: its last entry's time, and the ids, oldest first */
  readonly applied = new Map<string, { at: number; ids: string[] }>();
  /** `<partition>:<campaign id>` → that campaign's recipients and due chunks in the partition */
  readonly campaignParts = new Map<string, CampaignPart>();
  /** `<partition>:<name>` → the counters hash of that name in the partition */
  readonly counters = new Map<string, Map<string, number>>();
  /** conversation id → its transcript's entries, oldest first (`storeLimits.transcriptEntries`) */
  readonly transcripts = new Map<string, StoredTranscriptEntry[]>();
  /** dead letter JSON, newest first */
  deadLetters: string[] = [];
  /** per partition, its outbound events (issue 24) */
  readonly eventOutboxes: MemoryEventOutbox[];
  /** per partition, its timers */
  private readonly timers: MemoryTimers[];
  /** `onTimerArmed` listeners: told of each timer a commit sets, on a microtask. */
  readonly timerListeners = new Set<(partition: number, dueAt: number) => void>();
  /** `onEventsQueued` listeners: told of each partition a call queued events in, on a microtask. */
  readonly eventListeners = new Set<(partition: number) => void>();

  constructor(
    readonly partitions: number,
    readonly listeners: ReadyListeners,
  ) {
    this.queues = {
      inbox: new MemoryLeaseQueue(partitions),
      outbox: new MemoryLeaseQueue(partitions),
    };
    this.timers = Array.from({ length: partitions }, () => new MemoryTimers());
    this.eventOutboxes = Array.from(
      { length: partitions },
      (_, partition) => new MemoryEventOutbox(() => this.eventsQueued(partition)),
    );
  }

  /** Tells the `onEventsQueued` listeners, after the call that queued them has answered. */
  private eventsQueued(partition: number): void {
    if (this.eventListeners.size === 0) return;
    queueMicrotask(() => {
      for (const listener of this.eventListeners) listener(partition);
    });
  }

  timersOf(partition: number): MemoryTimers {
    const timers = this.timers[partition];
    if (!timers) throw new RangeError(`partition ${partition} does not exist`);
    return timers;
  }

  /** The counters hash `name` of a partition (made empty on first use). */
  countersOf(partition: number, name: string): Map<string, number> {
    const key = `${partition}:${name}`;
    let hash = this.counters.get(key);
    if (!hash) {
      hash = new Map();
      this.counters.set(key, hash);
    }
    return hash;
  }

  /**
   * Changes counters as lib/change-counters.lua does: a gauge's field (`ttlMs: 0`) counted down
   * to 0 goes. The memory store keeps no TTL (it lives as long as its process).
   */
  changeCounters(partition: number, changes: readonly CounterChange[] = []): void {
    for (const { name, field, by, ttlMs } of changes) {
      const hash = this.countersOf(partition, name);
      const count = (hash.get(field) ?? 0) + by;
      if (count === 0 && ttlMs === 0) hash.delete(field);
      else hash.set(field, count);
    }
  }

  /** A counters hash summed over the partitions, as the Redis driver reads it. */
  sumCounters(name: string): Record<string, number> {
    const total: Record<string, number> = {};
    for (let p = 0; p < this.partitions; p++) {
      for (const [field, count] of this.counters.get(`${p}:${name}`) ?? []) {
        total[field] = (total[field] ?? 0) + count;
      }
    }
    // As the Redis driver: a field counted down to nothing is not shown.
    for (const [field, count] of Object.entries(total)) if (count === 0) delete total[field];
    return total;
  }

  /** Adds a message to a conversation's transcript; the oldest go past the bound. */
  addTranscriptEntry(id: string, entry: StoredTranscriptEntry): void {
    const entries = this.transcripts.get(id) ?? [];
    entries.push({ ...entry });
    entries.splice(0, Math.max(0, entries.length - storeLimits.transcriptEntries));
    this.transcripts.set(id, entries);
  }

  partitionOf(phone: string): number {
    return partitionOf(phone, this.partitions);
  }

  /** The per-partition name of an sms id, outbox message id or notification id. */
  inPartition(phone: string, id: string): string {
    return `${this.partitionOf(phone)}:${id}`;
  }

  head<T>(queue: QueueName, key: ConversationKey): T | null {
    return parse<T>(this.queues[queue].head(conversationId(key)));
  }

  headIs(queue: QueueName, key: ConversationKey, id: string): boolean {
    return this.head<{ id: string }>(queue, key)?.id === id;
  }

  inboxView(key: ConversationKey): InboxView {
    const next = this.head<MailboxEvent>('inbox', key);
    // The message the event is about: the one a reply answers, or the one a status reports on.
    const smsId =
      next?.kind === 'reply' ? next.originSmsId : next?.kind === 'status' ? next.smsId : '';
    const origin = smsId ? this.messages.get(this.inPartition(key.phone, smsId)) : null;
    return {
      record: parse(this.conversations.get(conversationId(key))),
      next,
      origin: parse<MessageRecord>(origin),
    };
  }

  /**
   * The outbox's head message as the sender may send it at `now`, and the sms id its "sent"
   * guard holds, as `readOutbox` answers: first drops the head messages that must not be sent
   * (a suppressed phone, the loop guard), as the Redis scripts' `outboxHead` does.
   */
  outboxView(key: ConversationKey, now: number): OutboxView {
    const dropped = this.dropUnsendable(key, now);
    const message =
      dropped.length < storeLimits.dropsPerView ? this.head<OutboundMessage>('outbox', key) : null;
    const guard = message ? this.sent.get(this.inPartition(key.phone, message.id)) : undefined;
    return {
      message,
      sentSmsId: guard?.smsId ?? null,
      ...(dropped.length > 0 && { dropped }),
    };
  }

  /** Pops the head messages that must not be sent at `now`, recording each as dropped. */
  private dropUnsendable(key: ConversationKey, now: number): DroppedMessage[] {
    const id = conversationId(key);
    const dropped: DroppedMessage[] = [];
    while (dropped.length < storeLimits.dropsPerView) {
      const message = this.head<OutboundMessage>('outbox', key);
      if (!message || message.compliance === 'opt-out' || message.contact) break;
      const held = (m: OutboundMessage) => m.holdUntil !== undefined && m.holdUntil > now;
      if (!this.suppressed.has(id) && held(message)) {
        // Quiet hours: the held head moves behind the first message that is not held.
        const items = this.queues.outbox
          .items(id)
          .map((json) => JSON.parse(json) as OutboundMessage);
        const free = items.findIndex((m) => !held(m));
        if (free < 0) break;
        this.queues.outbox.rotate(id, free);
        continue;
      }
      const reason = this.suppressed.has(id)
        ? 'suppressed'
        : message.loopGuard &&
            message.compliance !== 'help' &&
            this.overLoopGuard(id, message.loopGuard, now)
          ? 'loop_guard'
          : undefined;
      if (!reason) break;
      this.queues.outbox.pop(id);
      const smsId = droppedSmsId(message.id);
      const record: MessageRecord = {
        v: 1,
        smsId,
        location: message.location,
        phone: message.phone,
        status: 'errored',
        statusReason: reason,
        runId: message.runId,
        botId: message.botId,
        outboxId: message.id,
      };
      this.messages.set(this.inPartition(key.phone, smsId), storableJson(record));
      this.recordedSent.add(this.inPartition(key.phone, smsId));
      // As lib/outbox-head.lua: in the transcript of a conversation the store keeps.
      if (this.conversations.has(id) || this.transcripts.has(id)) {
        this.addTranscriptEntry(id, { direction: 'out', at: now, body: message.body, smsId });
      }
      dropped.push({ id: message.id, reason, botId: message.botId });
    }
    return dropped;
  }

  private overLoopGuard(
    id: string,
    guard: { max: number; windowMs: number },
    now: number,
  ): boolean {
    const sends = this.sends.get(id);
    if (!sends || sends.expiresAt <= now) return false;
    const oldest = sends.times[guard.max - 1];
    return oldest !== undefined && oldest > now - guard.windowMs;
  }

  /** Counts a send under its loop guard (record-sent-13.lua does the same). */
  countSend(id: string, guard: { max: number; windowMs: number }, now: number): void {
    const sends = this.sends.get(id);
    const times = sends && sends.expiresAt > now ? sends.times : [];
    times.unshift(now);
    times.length = Math.min(times.length, guard.max);
    this.sends.set(id, { times, expiresAt: now + guard.windowMs });
  }

  /**
   * The first view of an outbox claim: `outboxView`, and when the head is in doubt (taken over,
   * or `inDoubtUntil` set) with no "sent" guard, the sms id of its unrecorded send, if any.
   */
  claimedOutboxView(key: ConversationKey, takenOver: boolean, now: number): OutboxView {
    const view = this.outboxView(key, now);
    const message = view.message;
    if (message && !view.sentSmsId && (takenOver || message.inDoubtUntil !== undefined)) {
      const smsId = this.unrecordedOf(conversationId(key), now)?.get(message.body);
      if (smsId && !this.recordedSent.has(this.inPartition(key.phone, smsId))) {
        view.sentSmsId = smsId;
      }
    }
    return takenOver ? { ...view, takenOver } : view;
  }

  /** A conversation's unrecorded sends still kept at `now` (Redis expires the hash). */
  unrecordedOf(id: string, now: number): Map<string, string> | undefined {
    const unrecorded = this.unrecorded.get(id);
    return unrecorded && unrecorded.expiresAt > now ? unrecorded.bodies : undefined;
  }

  /** The early status events of a message record key still kept at `now` (Redis expires the list). */
  earlyStatusesOf(key: string, now: number): string[] {
    const early = this.earlyStatuses.get(key);
    return early && early.expiresAt > now ? early.events : [];
  }

  /** Drops expired sent guards, early status lists and unrecorded sends, as Redis expires their keys. */
  sweep(now: number): void {
    for (const [key, guard] of this.sent) if (guard.expiresAt <= now) this.sent.delete(key);
    for (const [key, early] of this.earlyStatuses) {
      if (early.expiresAt <= now) this.earlyStatuses.delete(key);
    }
    for (const [location, heard] of this.inDoubtHeard) {
      if (heard.expiresAt <= now) this.inDoubtHeard.delete(location);
    }
    for (const [key, unrecorded] of this.unrecorded) {
      if (unrecorded.expiresAt <= now) this.unrecorded.delete(key);
    }
  }
}
