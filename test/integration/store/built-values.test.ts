import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  ConversationRecord,
  MessageRecord,
  OutboundMessage,
  ReplyEvent,
  TimerRecord,
} from '../../../src/store/records.ts';
import { readConversationValue, valueLines } from '../../../src/store/redis/conversation-value.ts';
import {
  connectRedisCluster,
  createRedisStore,
} from '../../../src/store/redis/create-redis-store.ts';
import { type StoreKeys, storeKeys } from '../../../src/store/redis/keys.ts';
import type { RedisConnection } from '../../../src/store/redis/redis-store-context.ts';
import { transcriptListKept } from '../../../src/store/redis/transcript-line-with.ts';
import type {
  ClaimWithView,
  CounterChange,
  DirectCommitResult,
  RecordSentResult,
  StepCommit,
  Store,
} from '../../../src/store/store.ts';
import { storeLimits } from '../../../src/store/store-limits.ts';
import { unlinkEverywhere } from '../../support/cluster-keys.ts';
import { connectTestRedis, randomPrefix, testClusterNodes } from '../../support/redis.ts';
import {
  conversationRecord,
  keyOf,
  leaseMs,
  outboundMessage,
  phonesInDistinctPartitions,
  replyEvent,
  sentRecord,
  t0,
  timerRecord,
} from './contract/fixtures.ts';

/*
 * The Redis driver writes a conversation's value two ways (issue 26): "merged", the Lua scripts
 * cutting and joining the stored value (commit-step-17.lua, record-sent-13.lua), and "built",
 * the value made in TypeScript (value-after-step.ts, value-after-sent.ts) and written whole by
 * commit-direct-11.lua / record-sent-built-12.lua after a compare with the value the process
 * read. Store A takes the built path (its peek, then its commit and sends, know the value);
 * store B the merged one (it never peeks, so it never knows a value). Both are driven through
 * the same long conversation, with the same inputs and clock, and after every operation
 * everything either wrote is compared: the decoded value line by line, the transcript list,
 * TTLs, the timers zset, the outbox, counters, the loop guard's count and message records.
 */

const partitions = 16;
const guard = { max: 5, windowMs: 60_000 };
/** How far apart two TTLs read a few calls apart may be (ms). */
const ttlSlackMs = 5_000;

interface Side {
  name: string;
  redis: RedisConnection;
  store: Store;
  prefix: string;
  keys: StoreKeys;
  /** The store scripts the connection ran as Redis functions, by base name, in order. */
  ran: string[];
}

/**
 * Records the Redis functions run on `redis` (`replyflow_<base>_<sha>` → `<base>`), each once it
 * answered (a call that found the library missing is made again after loading it).
 */
function recordFunctions(redis: RedisConnection): string[] {
  const ran: string[] = [];
  const target = redis as unknown as { fcall: (...args: unknown[]) => Promise<unknown> };
  const fcall = target.fcall.bind(redis);
  target.fcall = async (...args: unknown[]) => {
    const reply = await fcall(...args);
    const name = String(args[0]);
    ran.push(/^replyflow_(.+)_[0-9a-f]{10}$/.exec(name)?.[1] ?? name);
    return reply;
  };
  return ran;
}

function sideOn(name: string, redis: RedisConnection): Side {
  const ran = recordFunctions(redis);
  const prefix = randomPrefix(`built-values-${name}`);
  const store = createRedisStore({ redis, prefix, partitions });
  return { name, redis, store, prefix, keys: storeKeys(prefix, partitions), ran };
}

/** A JSON value as a comparison sees it: `undefined` fields gone, as `toEqual` ignores them. */
const plain = (value: unknown): unknown =>
  value === undefined ? null : JSON.parse(JSON.stringify(value));

/** A stored value's lines, each decoded: what `readConversationValue` reads, and what it leaves out. */
function decodedLines(raw: string | null) {
  const lines = valueLines(raw);
  if (!lines) return null;
  const json = (line: string) => (line === '' ? '' : JSON.parse(line));
  return {
    seq: lines.seq,
    // With its head, the time of its last commit, which readConversationValue leaves out.
    applied: json(lines.applied),
    timers: json(lines.timers),
    messages: json(lines.messages),
    record: json(lines.record),
    transcript:
      lines.transcript === ''
        ? ''
        : lines.transcript
            .split('\t')
            .map((text) => (text.startsWith('#') ? text : [text[0], JSON.parse(text.slice(1))])),
  };
}

/** A transcript list entry (`i[…]` / `o[…]`) decoded. */
const listEntry = (entry: string) => [entry[0], JSON.parse(entry.slice(1))];

/** A message record as a key of its own holds it (`<rank><sent>{json}`), decoded. */
const storedMessage = (raw: string | null) =>
  raw === null ? null : { rank: raw[0], sent: raw[1], record: JSON.parse(raw.slice(2)) };

/** A TTL as compared exactly: -1 (none) and -2 (no key) as they are, any other as 'expiring'. */
const ttlClass = (ms: number) => (ms < 0 ? ms : 'expiring');

interface Observed {
  fields: Record<string, unknown>;
  /** The positive TTLs, compared within `ttlSlackMs`. */
  ttls: Record<string, number>;
}

const withoutToken = (result: DirectCommitResult) =>
  result.ok && result.outbox
    ? { ...result, outbox: { ...result.outbox, token: '<token>' } }
    : result;

interface Claims {
  a: ClaimWithView<'outbox'>;
  b: ClaimWithView<'outbox'>;
}

interface TurnSpec {
  body?: string;
  /** The step's messages (default: one). */
  outbound?: Array<{ body?: string; loopGuard?: boolean }>;
  timers?: { set: TimerRecord[]; cancel: string[] };
  counters?: CounterChange[];
  status?: ConversationRecord['status'];
  /** A new run starts with this step. */
  runId?: string;
  /** The record's snapshot with XState's empty `historyValue` and `children` (the `xs` form). */
  persisted?: boolean;
  /** A: the built commit answers 'moved' and the merged script commits (a head it would drop). */
  merged?: boolean;
  /** No `claimOutbox`: the outbox is left to `claim('outbox')`. */
  unclaimed?: boolean;
}

/** One conversation driven through A and B alike, compared after every operation. */
class Twin {
  now = t0;
  seq = 0;
  runId = 'run-1';
  runStartedAt = t0;
  turn = 0;
  lastSms: string | undefined;
  readonly smsIds: string[] = [];
  readonly droppedIds: string[] = [];
  /** The record's `timers`, as the engine keeps them: timer id → due. */
  readonly timers = new Map<string, number>();
  readonly counterNames = new Set<string>();
  operations = 0;
  builtCommits = 0;
  builtSends = 0;

  constructor(
    readonly a: Side,
    readonly b: Side,
    readonly phone: string,
  ) {}

  get key() {
    return keyOf(this.phone);
  }

  /** A's timers zset score of the conversation, and the TTL of its value (B's are the same). */
  async timersEntry(): Promise<number | null> {
    const c = this.a.keys.conversation(this.key);
    const score = await this.a.redis.zscore(c.timers, c.id);
    return score === null ? null : Number(score);
  }

  async valueTtl(): Promise<number> {
    return this.a.redis.pttl(this.a.keys.conversation(this.key).record);
  }

  /** The scripts `side` ran during `run`. */
  private async scriptsOf<T>(side: Side, run: () => Promise<T>): Promise<[T, string[]]> {
    const from = side.ran.length;
    const result = await run();
    return [result, side.ran.slice(from)];
  }

  timer(sendId: string, dueIn: number, runId = this.runId): TimerRecord {
    const event = sendId === 'replyflow.expire' ? { type: 'conversation.expire' } : undefined;
    return timerRecord(this.phone, sendId, this.now + 1_000 + dueIn, event, runId);
  }

  /** A: peek, then commitDirect; B: commitDirect alone. Answers the outbox claims handed over. */
  async commit(spec: TurnSpec = {}): Promise<Claims | undefined> {
    this.turn += 1;
    this.now += 1_000;
    const id = `r-${this.turn}`;
    if (spec.runId) {
      this.runId = spec.runId;
      this.runStartedAt = this.now;
    }
    for (const cancelled of spec.timers?.cancel ?? []) this.timers.delete(cancelled);
    for (const timer of spec.timers?.set ?? []) this.timers.set(timer.id, timer.dueAt);
    for (const change of spec.counters ?? []) this.counterNames.add(change.name);
    const status = spec.status ?? 'active';
    const record: ConversationRecord = {
      ...conversationRecord(this.phone, this.seq + 1),
      runId: this.runId,
      status,
      startedAt: this.runStartedAt,
      updatedAt: this.now,
      snapshot: {
        status: status === 'active' ? 'active' : 'done',
        value: this.turn % 4 === 0 ? { asking: { detail: `q${this.turn}` } } : `q${this.turn}`,
        context: { turn: this.turn, note: 'a/b "c" é 🎉', answers: [this.turn] },
        ...(spec.persisted && { historyValue: {}, children: {} }),
      },
      ...(this.timers.size > 0 && { timers: Object.fromEntries(this.timers) }),
      ...(status !== 'active' && { endedReason: 'final' }),
    };
    const outbound: OutboundMessage[] = (spec.outbound ?? [{}]).map((message, k) => ({
      ...outboundMessage(this.phone, `${id}:${k}`, message.body ?? `Answer ${this.turn}.${k}`),
      runId: this.runId,
      queuedAt: this.now,
      ...(message.loopGuard && { loopGuard: guard }),
    }));
    const step: StepCommit = {
      eventId: id,
      expectedSeq: this.seq,
      record,
      outbound,
      ...(!spec.unclaimed && { claimOutbox: { leaseMs } }),
      ...(spec.timers && { timers: spec.timers }),
      ...(spec.counters && { counters: spec.counters }),
    };
    const event: ReplyEvent = {
      ...replyEvent(id, this.phone, this.lastSms ?? 'sms-unknown'),
      receivedAt: this.now - 300,
      body: spec.body ?? `Reply ${this.turn}`,
    };

    // What A's peek must read: what B holds (the two were equal after the last operation).
    const expectedView = {
      record: await this.b.store.getConversation(this.key),
      origin: this.lastSms ? await this.b.store.getMessage(this.phone, this.lastSms) : null,
    };
    const [[peeked, a], ranA] = await this.scriptsOf(this.a, async () => {
      const view = await this.a.store.peekConversation(this.key, event.originSmsId);
      return [view, await this.a.store.commitDirect(event, structuredClone(step), this.now)];
    });
    const [b, ranB] = await this.scriptsOf(this.b, () =>
      this.b.store.commitDirect(event, structuredClone(step), this.now),
    );
    const op = `commit ${id}`;
    expect(peeked, `${op}: A's peek`).toEqual(expectedView);
    expect(ranB, `${op}: B's scripts`).toEqual(['commit_step']);
    expect(ranA, `${op}: A's scripts`).toEqual(
      spec.merged ? ['commit_direct', 'commit_step'] : ['commit_direct'],
    );
    if (!spec.merged) this.builtCommits += 1;
    expect(a.ok, op).toBe(true);
    expect(withoutToken(a), `${op}: the answers`).toEqual(withoutToken(b));
    this.seq += 1;
    await this.expectSame(op);
    if (!a.ok || !b.ok || !a.outbox || !b.outbox) return undefined;
    expect(a.outbox.token).not.toBe('');
    expect(b.outbox.token).not.toBe('');
    return { a: a.outbox, b: b.outbox };
  }

  /**
   * Records the send of the claims' head, as the sender does: A with the message it holds
   * (built), B without (merged). Answers both stores' answers, compared equal.
   */
  async send(
    claims: Claims,
    messages: { a: OutboundMessage; b: OutboundMessage },
    options: { counters?: CounterChange[]; merged?: boolean; details?: boolean } = {},
  ): Promise<RecordSentResult> {
    this.now += 1_000;
    const { a: message } = messages;
    expect(messages.b).toEqual(message);
    const smsId = `sms-${message.id}`;
    const record: MessageRecord = {
      ...sentRecord(this.phone, smsId, message.id),
      runId: message.runId,
      ...(options.details && {
        encoding: 'UCS-2' as const,
        parts: 2,
        price: 0.0075,
        createdAt: '2025-11-21T10:00:00Z',
      }),
    };
    for (const change of options.counters ?? []) this.counterNames.add(change.name);
    const [a, ranA] = await this.scriptsOf(this.a, () =>
      this.a.store.recordSent(
        claims.a,
        message.id,
        structuredClone(record),
        this.now,
        options.counters && structuredClone(options.counters),
        structuredClone(message),
      ),
    );
    const [b, ranB] = await this.scriptsOf(this.b, () =>
      this.b.store.recordSent(
        claims.b,
        messages.b.id,
        structuredClone(record),
        this.now,
        options.counters && structuredClone(options.counters),
      ),
    );
    const op = `recordSent ${message.id} as ${smsId}`;
    expect(ranB, `${op}: B's scripts`).toEqual(['record_sent']);
    expect(ranA, `${op}: A's scripts`).toEqual(
      options.merged ? ['record_sent_built', 'record_sent'] : ['record_sent_built'],
    );
    if (!options.merged) this.builtSends += 1;
    expect(a, `${op}: the answers`).toEqual(b);
    expect(a.ok, op).toBe(true);
    this.smsIds.push(smsId);
    this.lastSms = smsId;
    await this.expectSame(op);
    return a;
  }

  /** Sends everything the claims hold, one recordSent each, until one releases them. */
  async sendAll(
    claims: Claims,
    options: { counters?: CounterChange[]; details?: boolean } = {},
  ): Promise<RecordSentResult[]> {
    const answers: RecordSentResult[] = [];
    let a = claims.a.view.message;
    let b = claims.b.view.message;
    while (a && b) {
      const answer = await this.send(claims, { a, b }, options);
      answers.push(answer);
      if (!answer.ok) break;
      a = answer.nextOutbox.message;
      b = a && structuredClone(a);
    }
    const last = answers.at(-1);
    if (last?.ok) expect(last.released).toBe(last.nextOutbox.message === null);
    return answers;
  }

  /** A turn: the commit, then the sender's sends of what it queued. */
  async fullTurn(
    spec: TurnSpec = {},
    sendOptions: { counters?: CounterChange[]; details?: boolean } = {},
  ): Promise<RecordSentResult[]> {
    const claims = await this.commit(spec);
    if ((spec.outbound ?? [{}]).length === 0) {
      expect(claims).toBeUndefined();
      return [];
    }
    expect(claims?.a.view.message).toBeTruthy();
    return this.sendAll(claims!, sendOptions);
  }

  /** The sender's claim of the outbox, on each store (a step that did not hand it over). */
  async claimOutbox(): Promise<Claims> {
    this.now += 1_000;
    const partition = this.a.store.partitionOf(this.phone);
    const a = await this.a.store.claim('outbox', partition, leaseMs, this.now);
    const b = await this.b.store.claim('outbox', partition, leaseMs, this.now);
    expect(a && { ...a, token: '<token>' }).toEqual(b && { ...b, token: '<token>' });
    await this.expectSame(`claim of the outbox after turn ${this.turn}`);
    expect(a?.view.message).toBeTruthy();
    return { a: a!, b: b! };
  }

  /** The phone opts out (an operator's `markOptedOut`), or in again (`removeSuppression`). */
  async suppress(on: boolean): Promise<void> {
    this.now += 1_000;
    for (const side of [this.a, this.b]) {
      if (on) await side.store.markOptedOut(this.key, this.now, 'test');
      else expect(await side.store.removeSuppression(this.key)).toBe(true);
    }
    await this.expectSame(on ? 'opt-out' : 'opt-in');
  }

  async release(claims: Claims): Promise<void> {
    this.now += 1_000;
    await this.a.store.release(claims.a, this.now);
    await this.b.store.release(claims.b, this.now);
    await this.expectSame(`release of the outbox of turn ${this.turn}`);
  }

  async observe(side: Side): Promise<Observed> {
    const { redis, store, keys } = side;
    const key = this.key;
    const c = keys.conversation(key);
    const [
      raw,
      list,
      valueTtl,
      listTtl,
      timerScore,
      outboxReady,
      outboxLock,
      inboxLock,
      inboxReady,
    ] = await Promise.all([
      redis.get(c.record),
      redis.lrange(c.transcript(), 0, -1),
      redis.pttl(c.record),
      redis.pttl(c.transcript()),
      redis.zscore(c.timers, c.id),
      redis.zscore(c.ready('outbox'), c.id),
      redis.hgetall(c.lock('outbox')),
      redis.exists(c.lock('inbox')),
      redis.zscore(c.ready('inbox'), c.id),
    ]);
    const [sends, sendsTtl, outbox, events, applied, conversation, timers, transcript] =
      await Promise.all([
        redis.lrange(c.sends, 0, -1),
        redis.pttl(c.sends),
        store.pendingOutbound(key),
        store.pendingEvents(key),
        store.listApplied(key),
        store.getConversation(key),
        store.pendingTimers(key),
        store.readTranscript(key),
      ]);
    const suppressed = await store.isSuppressed(key);
    const { token, ...lock } = outboxLock;
    const ttls: Record<string, number> = {
      value: valueTtl,
      'transcript list': listTtl,
      'loop guard sends': sendsTtl,
    };
    const fields: Record<string, unknown> = {
      'decoded value (readConversationValue)': readConversationValue(raw, key),
      'value lines': decodedLines(raw),
      'transcript list': list.map(listEntry),
      'timers zset score': timerScore,
      'outbox ready score': outboxReady,
      'outbox lock (less its token)': { ...lock, token: token === undefined ? null : 'set' },
      'inbox lock': inboxLock,
      'inbox ready score': inboxReady,
      'loop guard sends': sends,
      pendingOutbound: outbox,
      pendingEvents: events,
      listApplied: applied,
      getConversation: conversation,
      pendingTimers: timers,
      readTranscript: transcript,
      isSuppressed: suppressed,
    };
    await Promise.all(
      [...this.counterNames].map(async (name) => {
        const [hash, ttl] = await Promise.all([
          redis.hgetall(c.countersPrefix + name),
          redis.pttl(c.countersPrefix + name),
        ]);
        fields[`counters ${name}`] = hash;
        ttls[`counters ${name}`] = ttl;
      }),
    );
    await Promise.all(
      [...this.smsIds, ...this.droppedIds].map(async (smsId) => {
        const [message, own, ttl] = await Promise.all([
          store.getMessage(this.phone, smsId),
          redis.get(c.message(smsId)),
          redis.pttl(c.message(smsId)),
        ]);
        fields[`getMessage ${smsId}`] = message;
        fields[`sms key ${smsId}`] = storedMessage(own);
        ttls[`sms key ${smsId}`] = ttl;
      }),
    );
    for (const [name, ttl] of Object.entries(ttls)) fields[`TTL of ${name}`] = ttlClass(ttl);
    return { fields, ttls };
  }

  /** Fails, naming every field that differs and both values, unless A and B hold the same. */
  async expectSame(op: string): Promise<void> {
    this.operations += 1;
    const [a, b] = await Promise.all([this.observe(this.a), this.observe(this.b)]);
    const differences: Array<{ field: string; a: unknown; b: unknown }> = [];
    for (const field of new Set([...Object.keys(a.fields), ...Object.keys(b.fields)])) {
      const [left, right] = [plain(a.fields[field]), plain(b.fields[field])];
      if (!isDeepStrictEqual(left, right)) differences.push({ field, a: left, b: right });
    }
    for (const [name, ttl] of Object.entries(a.ttls)) {
      const other = b.ttls[name] ?? -2;
      if (ttl > 0 && other > 0 && Math.abs(ttl - other) > ttlSlackMs) {
        differences.push({ field: `TTL of ${name} (ms)`, a: ttl, b: other });
      }
    }
    const fields = differences.map((difference) => difference.field);
    expect({ op, fields, differences }).toEqual({ op, fields: [], differences: [] });
  }
}

const x = (field: string, by = 1): CounterChange => ({ name: 'x', field, by });
/** A gauge: no TTL, its field deleted when counted down to 0. */
const gauge = (by: number): CounterChange => ({ name: 'g', field: 'open', by, ttlMs: 0 });

/** The whole conversation, driven through both stores. */
async function driveConversation(twin: Twin): Promise<void> {
  // 1: the first turn of a phone with no value at all; counters in the commit and the send.
  await twin.fullTurn({ counters: [x('f'), gauge(1)] }, { counters: [x('sent')] });
  // 2: bodies with quotes, slashes, backslashes, tabs, newlines, accents and emoji.
  await twin.fullTurn(
    {
      body: 'Oui "peut-être" a/b \\ é\t🎉\nfin',
      outbound: [{ body: 'Merci "vous" a/b \\ ✓\t🎉\nfin' }],
    },
    { details: true },
  );
  // 3–5: a timer set, then set again earlier than the one it replaces, then later.
  const reminder = (dueIn: number) => twin.timer('reminder', dueIn);
  const firstReminder = reminder(3_600_000);
  await twin.fullTurn({ timers: { set: [firstReminder], cancel: [] } });
  expect(await twin.timersEntry()).toBe(firstReminder.dueAt);
  const earlier = reminder(1_800_000);
  expect(earlier.dueAt).toBeLessThan(firstReminder.dueAt);
  await twin.fullTurn({ timers: { set: [earlier], cancel: [] } });
  expect(await twin.timersEntry()).toBe(earlier.dueAt);
  const later = reminder(7_200_000);
  await twin.fullTurn({ timers: { set: [later], cancel: [] } });
  // The entry stays at or before the earliest pending due time: it moves only earlier.
  expect(await twin.timersEntry()).toBe(earlier.dueAt);
  expect((await twin.a.store.pendingTimers(twin.key)).map((t) => t.dueAt)).toEqual([later.dueAt]);
  // 6: a second timer, sooner than every other; 7: cancelled, in a step that sends nothing.
  await twin.fullTurn({
    timers: { set: [twin.timer('nudge', 600_000)], cancel: [] },
    counters: [x('f')],
  });
  await twin.fullTurn({ timers: { set: [], cancel: ['run-1:nudge'] }, outbound: [] });
  // 8: the expiry (its event implied by its send id), the snapshot in XState's whole form.
  await twin.fullTurn({
    timers: { set: [twin.timer('replyflow.expire', 86_400_000)], cancel: [] },
    persisted: true,
  });
  // 9: two messages in one step: the first send answers the second.
  const two = await twin.fullTurn(
    { outbound: [{}, { body: 'Second' }] },
    { counters: [x('sent')] },
  );
  expect(two.map((answer) => answer.ok && answer.released)).toEqual([false, true]);
  expect(two[0]).toMatchObject({ nextOutbox: { message: { id: 'r-9:1' } }, released: false });

  // 10–11: the outbox already holds a message when the next commit comes (under loop guards).
  const held = await twin.commit({ outbound: [{ loopGuard: true }] });
  expect(await twin.commit({ outbound: [{ loopGuard: true }] })).toBeUndefined();
  const [first, second] = await twin.sendAll(held!, { counters: [x('sent')] });
  expect(first).toEqual({
    ok: true,
    nextOutbox: { message: expect.objectContaining({ id: 'r-11:0' }), sentSmsId: null },
    released: false,
  });
  expect(second).toEqual({
    ok: true,
    nextOutbox: { message: null, sentSmsId: null },
    released: true,
  });
  // 12–13: two more sends under the guard: 4 within its window.
  await twin.fullTurn({ outbound: [{ loopGuard: true }] });
  await twin.fullTurn({ outbound: [{ loopGuard: true }] });
  // 14–15: the 5th send's next message is past the guard: the send's next view drops it
  // (A's built send answers 'moved' and the merging script records it).
  const full = await twin.commit({ outbound: [{ loopGuard: true }] });
  expect(await twin.commit({ outbound: [{ loopGuard: true }] })).toBeUndefined();
  twin.droppedIds.push('dropped:r-15:0');
  const message = full!.a.view.message!;
  const dropping = await twin.send(
    full!,
    { a: message, b: structuredClone(message) },
    {
      merged: true,
    },
  );
  expect(dropping).toEqual({
    ok: true,
    nextOutbox: {
      message: null,
      sentSmsId: null,
      dropped: [{ id: 'r-15:0', reason: 'loop_guard', botId: 'survey' }],
    },
    released: true,
  });
  // 16: a message past the guard at the commit's hand-over: dropped there (A's built commit
  // answers 'moved'), the claim handed over with nothing to send, then released.
  twin.droppedIds.push('dropped:r-16:0');
  const empty = await twin.commit({ outbound: [{ loopGuard: true }], merged: true });
  expect(empty?.a.view).toEqual({
    message: null,
    sentSmsId: null,
    dropped: [{ id: 'r-16:0', reason: 'loop_guard', botId: 'survey' }],
  });
  await twin.release(empty!);
  // 17: built again right after.
  await twin.fullTurn();

  // 18: a new run while the old run's timers are pending; its own timer of the same send id.
  await twin.fullTurn({
    runId: 'run-2',
    timers: { set: [twin.timer('reminder', 900_000, 'run-2')], cancel: [] },
    counters: [x('started')],
  });
  const ids = async () => (await twin.a.store.pendingTimers(twin.key)).map((t) => t.id).sort();
  expect(await ids()).toEqual(['run-1:reminder', 'run-1:replyflow.expire', 'run-2:reminder']);
  // 19: the old run's timer cancelled by its id.
  await twin.fullTurn({ timers: { set: [], cancel: ['run-1:reminder'] } });
  expect(await ids()).toEqual(['run-1:replyflow.expire', 'run-2:reminder']);
  // 20: the run ends: the value (and its transcript list) get the retention as TTL.
  await twin.fullTurn(
    { status: 'done', counters: [gauge(-1), x('ended')], body: 'STOP?' },
    { counters: [x('sent')] },
  );
  expect(await twin.valueTtl()).toBeGreaterThan(0);
  // 21: a new run after the end: kept again until it ends.
  await twin.fullTurn({ runId: 'run-3', counters: [gauge(1)] });
  expect(await twin.valueTtl()).toBe(-1);
  // 22: every timer cancelled: the partition's timers entry goes.
  await twin.fullTurn({
    timers: { set: [], cancel: ['run-1:replyflow.expire', 'run-2:reminder'] },
  });
  expect(await twin.a.store.pendingTimers(twin.key)).toEqual([]);
  expect(await twin.timersEntry()).toBeNull();

  // 23–40: past the applied log's cap (32 events).
  for (let n = 23; n <= 40; n++) {
    await twin.fullTurn(
      {
        ...(n % 3 === 0 && { counters: [x('f')] }),
        ...(n === 30 && { timers: { set: [twin.timer('later', 3_600_000)], cancel: [] } }),
      },
      { ...(n % 4 === 0 && { counters: [x('sent')] }), details: n % 2 === 0 },
    );
  }
  expect(await twin.a.store.listApplied(twin.key)).toHaveLength(storeLimits.appliedLogCap);

  // 41: more than the applied log's window (24 h) later: the log starts again.
  twin.now += storeLimits.appliedWindowMs + 3_600_000;
  await twin.fullTurn({ timers: { set: [twin.timer('later', 60_000)], cancel: [] } });
  expect(await twin.a.store.listApplied(twin.key)).toEqual(['r-41']);

  // 42–110: past the transcript's cap (200 entries): its list is trimmed.
  for (let n = 42; n <= 110; n++) {
    if (n === 60) {
      // 60: the phone opts out while a send is in flight: the send's next view drops the
      // second message (A's built send answers 'moved'); 61: the commit's hand-over drops its
      // message (A's built commit answers 'moved'). Then the phone opts in again.
      const claims = await twin.commit({ outbound: [{}, { body: 'Second, never sent' }] });
      await twin.suppress(true);
      twin.droppedIds.push('dropped:r-60:1', 'dropped:r-61:0');
      const head = claims!.a.view.message!;
      expect(
        await twin.send(claims!, { a: head, b: structuredClone(head) }, { merged: true }),
      ).toEqual({
        ok: true,
        nextOutbox: {
          message: null,
          sentSmsId: null,
          dropped: [{ id: 'r-60:1', reason: 'suppressed', botId: 'survey' }],
        },
        released: true,
      });
      const none = await twin.commit({ merged: true });
      expect(none?.a.view).toEqual({
        message: null,
        sentSmsId: null,
        dropped: [{ id: 'r-61:0', reason: 'suppressed', botId: 'survey' }],
      });
      await twin.release(none!);
      await twin.suppress(false);
      n += 1;
      continue;
    }
    if (n === 70) {
      // A step that leaves its outbox to the sender's own claim.
      expect(await twin.commit({ unclaimed: true, counters: [x('f')] })).toBeUndefined();
      await twin.sendAll(await twin.claimOutbox(), { counters: [x('sent')] });
      continue;
    }
    if (n % 13 === 0) {
      // The outbox already holds a message when the next commit comes.
      const claims = await twin.commit();
      expect(await twin.commit({ outbound: [{ body: `Held ${n}` }] })).toBeUndefined();
      await twin.sendAll(claims!, { counters: [x('sent')] });
      n += 1;
      continue;
    }
    await twin.fullTurn(
      {
        ...(n % 5 === 0 && { counters: [x('f')] }),
        ...(n % 7 === 0 && { outbound: [{ loopGuard: true }] }),
        ...(n % 11 === 0 && { outbound: [{}, { body: `Two ${n}` }, { body: `Three ${n}` }] }),
        ...(n % 17 === 0 && { timers: { set: [twin.timer(`t${n}`, 60_000 * n)], cancel: [] } }),
      },
      { ...(n % 6 === 0 && { counters: [x('sent')] }), details: n % 3 === 0 },
    );
  }
  expect(twin.turn).toBe(110);
}

function suite(
  connect: () => RedisConnection,
  unlink: (connection: RedisConnection, prefix: string) => Promise<void>,
): void {
  let a: Side;
  let b: Side;

  beforeAll(() => {
    a = sideOn('a', connect());
    b = sideOn('b', connect());
  });

  afterAll(async () => {
    for (const side of [a, b]) {
      if (!side) continue;
      await side.store.close();
      await unlink(side.redis, side.prefix);
      await side.redis.quit();
    }
  });

  it('leaves the same state, operation after operation, whether the driver builds the value or the scripts merge it', async () => {
    const [phone = ''] = phonesInDistinctPartitions(a.store, 1);
    const twin = new Twin(a, b, phone);
    await driveConversation(twin);

    // A took the built path for all but the two turns that must go to the merging scripts.
    expect(a.ran).toContain('commit_direct');
    expect(a.ran).toContain('record_sent_built');
    expect(b.ran).not.toContain('commit_direct');
    expect(b.ran).not.toContain('record_sent_built');
    expect(twin.builtCommits).toBeGreaterThan(100);
    expect(twin.builtSends).toBeGreaterThan(100);

    // What the conversation crossed, on both stores alike.
    const c = a.keys.conversation(twin.key);
    const value = readConversationValue(await a.redis.get(c.record), twin.key);
    expect(value?.seq).toBe(twin.seq);
    expect(value?.messages).toHaveLength(storeLimits.messagesInRecord);
    expect(await a.redis.exists(c.message(twin.smsIds[0]!))).toBe(1);
    // The list keeps the cap less the value's 4 newest, the line between 4 and 8.
    expect(await a.redis.llen(c.transcript())).toBe(transcriptListKept());
    const transcript = await a.store.readTranscript(twin.key);
    expect(transcript?.entries).toHaveLength(storeLimits.transcriptEntries);
    expect(await a.redis.hgetall(c.countersPrefix + 'x')).toMatchObject({ f: expect.any(String) });
  }, 180_000);
}

describe('built and merged conversation values, on one Redis', () => {
  suite(
    () => connectTestRedis(),
    async (redis, prefix) => {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.unlink(...keys);
    },
  );
});

describe('built and merged conversation values, on a Redis Cluster', () => {
  suite(
    () => connectRedisCluster(testClusterNodes()),
    (_cluster, prefix) => unlinkEverywhere(testClusterNodes(), prefix),
  );
});
