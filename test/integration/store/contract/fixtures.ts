import { expect, vi } from 'vitest';
import type {
  ConversationKey,
  ConversationRecord,
  MessageRecord,
  OutboundMessage,
  ReplyEvent,
  StartEvent,
  StatusEvent,
  TimerRecord,
} from '../../../../src/store/records.ts';
import type { ClaimWithView, QueueName, StepCommit, Store } from '../../../../src/store/store.ts';

/** The injected clock of every contract test: times are arguments, nothing sleeps. */
export const t0 = 1_763_700_000_000;
export const leaseMs = 30_000;
export const location = 'paris';

/** `count` phones whose conversations live in different partitions of `store`. */
export function phonesInDistinctPartitions(store: Store, count: number): string[] {
  const byPartition = new Map<number, string>();
  for (let n = 0; byPartition.size < count; n++) {
    const phone = `3361234${String(n).padStart(4, '0')}`;
    if (!byPartition.has(store.partitionOf(phone)))
      byPartition.set(store.partitionOf(phone), phone);
  }
  return [...byPartition.values()];
}

/** A second phone in the same partition as `phone`. */
export function phoneInSamePartition(store: Store, phone: string): string {
  for (let n = 0; ; n++) {
    const other = `3369876${String(n).padStart(4, '0')}`;
    if (other !== phone && store.partitionOf(other) === store.partitionOf(phone)) return other;
  }
}

export const keyOf = (phone: string): ConversationKey => ({ location, phone });

export function startEvent(id: string, phone: string): StartEvent {
  return {
    v: 1,
    kind: 'start',
    id,
    location,
    phone,
    receivedAt: t0,
    botId: 'survey',
    input: { n: 1 },
  };
}

export function replyEvent(id: string, phone: string, originSmsId = 'sms-unknown'): ReplyEvent {
  return {
    v: 1,
    kind: 'reply',
    id,
    location,
    phone,
    receivedAt: t0,
    body: 'YES',
    originSmsId,
    to: '38383',
  };
}

export function statusEvent(
  id: string,
  phone: string,
  smsId: string,
  status: StatusEvent['status'],
): StatusEvent {
  return {
    v: 1,
    kind: 'status',
    id,
    location,
    phone,
    receivedAt: t0,
    smsId,
    status,
    statusReason: `${status}-reason`,
  };
}

/** A status item as the webhook builds it from an `sms.status` notification. */
export function statusItem(
  id: string,
  phone: string,
  smsId: string,
  status: StatusEvent['status'],
) {
  return {
    event: statusEvent(id, phone, smsId, status),
    status: {
      status,
      statusReason: `${status}-reason`,
      parts: 2,
      price: 0.0075,
      updatedAt: '2025-11-21T10:00:00Z',
    },
  };
}

export function conversationRecord(phone: string, seq: number): ConversationRecord {
  return {
    v: 1,
    location,
    phone,
    runId: 'run-1',
    botId: 'survey',
    botVersion: 'abc',
    status: 'active',
    snapshot: { value: { asking: 'q1' }, context: { answers: [], note: 'a/b "c" é 🎉' } },
    seq,
    startedAt: t0,
    updatedAt: t0 + seq,
  };
}

export function outboundMessage(
  phone: string,
  id: string,
  body = 'Hello ✓ "quoted" a/b',
): OutboundMessage {
  return {
    v: 1,
    location,
    phone,
    id,
    runId: 'run-1',
    botId: 'survey',
    body,
    queuedAt: t0,
    attempts: 0,
  };
}

export function sentRecord(phone: string, smsId: string, outboxId: string): MessageRecord {
  return {
    v: 1,
    location,
    phone,
    smsId,
    status: 'pending',
    statusReason: '',
    runId: 'run-1',
    botId: 'survey',
    outboxId,
  };
}

/** Claims the conversation of `phone` in `queue`, failing the test when something else or nothing comes. */
export async function claimOf<Q extends QueueName>(
  store: Store,
  queue: Q,
  phone: string,
  now: number,
): Promise<ClaimWithView<Q>> {
  const claim = await store.claim(queue, store.partitionOf(phone), leaseMs, now);
  expect(claim).toMatchObject({ queue, location, phone, partition: store.partitionOf(phone) });
  return claim!;
}

/**
 * A conversation in a partition of its own with two events in its mailbox (start `e-1`, reply
 * `e-2`), claimed at `t0`: the opening of most commit and lease cases.
 */
export async function claimStartAndReply(
  store: Store,
): Promise<{ phone: string; claim: ClaimWithView<'inbox'> }> {
  const [phone = ''] = phonesInDistinctPartitions(store, 1);
  await store.ingest(
    'n-1',
    [{ event: startEvent('e-1', phone) }, { event: replyEvent('e-2', phone) }],
    t0,
  );
  return { phone, claim: await claimOf(store, 'inbox', phone, t0) };
}

/** Runs one start event through a commit that queues `messages`, then releases the inbox. */
export async function queueOutbound(
  store: Store,
  phone: string,
  messages: OutboundMessage[],
  now = t0,
) {
  const eventId = `start-${messages.map((m) => m.id).join('+')}`;
  await store.ingest(`n-${phone}-${eventId}`, [{ event: startEvent(eventId, phone) }], now);
  const claim = await claimOf(store, 'inbox', phone, now);
  const seq = (await store.readInbox(claim)).record?.seq ?? 0;
  const result = await store.commitStep(
    claim,
    { eventId, expectedSeq: seq, record: conversationRecord(phone, seq + 1), outbound: messages },
    now,
  );
  expect(result.ok).toBe(true);
  await store.release(claim, now);
}

/** A timer of `phone`'s conversation, id `<runId>:<sendId>` (run ids are unique, so timer ids are). */
export function timerRecord(
  phone: string,
  sendId: string,
  dueAt: number,
  event: TimerRecord['event'] = { type: `${sendId}.fired` },
  runId = 'run-1',
): TimerRecord {
  return { v: 1, id: `${runId}:${sendId}`, location, phone, runId, sendId, dueAt, event };
}

/**
 * Runs one start event through a commit that sets and cancels `timers`, then releases the
 * inbox: the conversation is left with an empty mailbox, not ready, as after a real step.
 */
export async function commitTimers(
  store: Store,
  phone: string,
  timers: NonNullable<StepCommit['timers']>,
  now = t0,
): Promise<void> {
  const eventId = `start-${timers.set.map((t) => `${t.id}@${t.dueAt}`).join('+')}-${timers.cancel.join('+')}`;
  await store.ingest(`n-${phone}-${eventId}`, [{ event: startEvent(eventId, phone) }], now);
  const claim = await claimOf(store, 'inbox', phone, now);
  const seq = (await store.readInbox(claim)).record?.seq ?? 0;
  const result = await store.commitStep(
    claim,
    { eventId, expectedSeq: seq, record: conversationRecord(phone, seq + 1), outbound: [], timers },
    now,
  );
  expect(result.ok).toBe(true);
  await store.release(claim, now);
}

/**
 * Queues message `messageId` in `phone`'s outbox (through a step, as the bot does) and claims
 * the outbox, so the test can call `recordSent` for it. The inbox is left empty and not ready.
 */
export async function claimQueued(
  store: Store,
  phone: string,
  messageId: string,
  now = t0,
): Promise<ClaimWithView<'outbox'>> {
  await queueOutbound(store, phone, [outboundMessage(phone, messageId)], now);
  return claimOf(store, 'outbox', phone, now);
}

/** Sends `smsId` as far as the store is concerned: queued, recorded sent, outbox released (by recordSent). */
export async function recordedSms(store: Store, phone: string, smsId: string, now = t0) {
  const messageId = `e-${smsId}:0`;
  const claim = await claimQueued(store, phone, messageId, now);
  expect(
    await store.recordSent(claim, messageId, sentRecord(phone, smsId, messageId), now),
  ).toEqual({ ok: true, nextOutbox: { message: null, sentSmsId: null }, released: true });
}

// Probe phones are never reused within a test file (each probe's conversation stays claimed).
let probes = 0;

/**
 * Ingests, until `heard` holds the partition's inbox announcement, a reply for a phone of
 * `partition` never used before, claimed at once so that nothing is left due there (an ingest
 * into a partition with other due work is not announced). A Redis subscription starts
 * asynchronously, and announcements travel in order: once this one is heard, nothing of the
 * partition from before it can arrive later.
 */
export async function untilHeard(
  store: Store,
  heard: ReadonlyArray<[QueueName, number]>,
  partition: number,
): Promise<void> {
  await vi.waitFor(
    async () => {
      let phone: string;
      do phone = `3369878${String(probes++).padStart(4, '0')}`;
      while (store.partitionOf(phone) !== partition);
      await store.ingest(`n-probe-${phone}`, [{ event: replyEvent(`probe-${phone}`, phone) }], t0);
      await claimOf(store, 'inbox', phone, t0);
      expect(heard).toContainEqual(['inbox', partition]);
      // A subscription that failed at first (the Cluster slow to answer under load) is asked
      // again a second later: more than vi.waitFor's default second.
    },
    { timeout: 15_000, interval: 100 },
  );
}
