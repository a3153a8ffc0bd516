import { afterAll, describe, expect, it } from 'vitest';
import { statusRank } from '../../../src/store/records.ts';
import { createRedisStore } from '../../../src/store/redis/create-redis-store.ts';
import type { StepCommit, Store } from '../../../src/store/store.ts';
import { connectTestRedis, randomPrefix } from '../../support/redis.ts';
import {
  claimOf,
  conversationRecord,
  keyOf,
  leaseMs,
  outboundMessage,
  queueOutbound,
  recordedSms,
  replyEvent,
  sentRecord,
  startEvent,
  statusItem,
  t0,
} from './contract/fixtures.ts';

const redis = connectTestRedis();
afterAll(() => redis.quit());

/** The store functions called on the connection, by script (`commit_direct`, `record_sent`…). */
const called: string[] = [];
/** The arguments (ARGV, less the keys) of each call in `called`. */
const calledArgs: string[][] = [];
const fcall = redis.fcall.bind(redis);
redis.fcall = ((name: string, ...rest: unknown[]) => {
  called.push(String(name).replace(/^replyflow_|_[0-9a-f]{10}$/g, ''));
  const flat = rest.flat().map(String);
  calledArgs.push(flat.slice(1 + Number(flat[0])));
  return (fcall as (...args: unknown[]) => Promise<unknown>)(name, ...rest);
}) as typeof redis.fcall;
/** The scripts the calls made in `run` went through, in order. */
async function scriptsOf(run: () => Promise<unknown>): Promise<string[]> {
  called.length = 0;
  calledArgs.length = 0;
  await run();
  return [...called];
}

/** The commands (lower case) the calls made in `run` sent on the connection, in order. */
const sent: string[] = [];
const sendCommand = redis.sendCommand.bind(redis);
redis.sendCommand = ((command: { name: string }, ...rest: unknown[]) => {
  sent.push(command.name.toLowerCase());
  return (sendCommand as (...args: unknown[]) => unknown)(command, ...rest);
}) as typeof redis.sendCommand;
async function commandsOf(run: () => Promise<unknown>): Promise<string[]> {
  sent.length = 0;
  await run();
  return [...sent];
}

/** A Redis store on a keyspace of its own, deleted after the file. */
function storeOn(name: string): Store {
  const prefix = randomPrefix(name);
  const store = createRedisStore({ redis, prefix, partitions: 16 });
  afterAll(async () => {
    await store.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.unlink(...keys);
  });
  return store;
}

/** Two Redis stores (two processes) on one keyspace of their own, deleted after the file. */
function twoStoresOn(name: string): { prefix: string; one: Store; other: Store } {
  const prefix = randomPrefix(name);
  const stores = [0, 1].map(() => createRedisStore({ redis, prefix, partitions: 16 }));
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.unlink(...keys);
  });
  const [one, other] = stores as [Store, Store];
  return { prefix, one, other };
}

/** The step of reply `eventId` on a conversation at `seq`: the next record and one answer. */
const replyStep = (phone: string, eventId: string, seq: number): StepCommit => ({
  eventId,
  expectedSeq: seq,
  record: conversationRecord(phone, seq + 1),
  outbound: [outboundMessage(phone, `${eventId}:0`, `Answer to ${eventId}`)],
  claimOutbox: { leaseMs },
});

/**
 * Two processes on one Redis: what one knows of a conversation's value (value-cache.ts) goes
 * stale when the other writes it. The built writes (commit-direct, record-sent-built) then find
 * the value moved, and the merging scripts write instead: nothing the other wrote is lost.
 */
describe('two Redis store instances on one keyspace', () => {
  const { one, other } = twoStoresOn('value-cache');

  it("keeps what the other process wrote when a direct commit's value moved after its look", async () => {
    const phone = '33612399001';
    await recordedSms(other, phone, 'sms-a');
    expect((await one.peekConversation(keyOf(phone)))?.record?.seq).toBe(1);
    // The other process steps an event that keeps the record and sends an SMS meanwhile: the
    // value one read has moved (applied log, messages), its seq has not.
    await other.ingest('n-x', [{ event: startEvent('e-x', phone) }], t0 + 1);
    const inbox = await claimOf(other, 'inbox', phone, t0 + 1);
    const message = outboundMessage(phone, 'e-x:0');
    const keep = { eventId: 'e-x', expectedSeq: 1, record: null, outbound: [message] };
    expect(await other.commitStep(inbox, keep, t0 + 1)).toMatchObject({ ok: true });
    const outbox = await claimOf(other, 'outbox', phone, t0 + 1);
    const sent = sentRecord(phone, 'sms-b', message.id);
    expect(await other.recordSent(outbox, message.id, sent, t0 + 1)).toMatchObject({ ok: true });
    let result: Awaited<ReturnType<Store['commitDirect']>> | undefined;
    const scripts = await scriptsOf(async () => {
      result = await one.commitDirect(replyEvent('r-1', phone), replyStep(phone, 'r-1', 1), t0 + 2);
    });
    // The built write found the value moved; the merging script committed.
    expect(scripts).toEqual(['commit_direct', 'commit_step']);
    expect(result?.ok).toBe(true);
    expect(await one.getConversation(keyOf(phone))).toEqual(conversationRecord(phone, 2));
    for (const smsId of ['sms-a', 'sms-b']) {
      expect(await one.getMessage(phone, smsId)).toMatchObject({ smsId });
    }
    expect(await one.listApplied(keyOf(phone))).toEqual(expect.arrayContaining(['e-x', 'r-1']));
  });

  it("refuses as stale a direct commit whose look the other process's commit overtook", async () => {
    const phone = '33612399002';
    expect(await one.peekConversation(keyOf(phone))).toEqual({ record: null, origin: null });
    expect(await other.peekConversation(keyOf(phone))).toEqual({ record: null, origin: null });
    const first = await other.commitDirect(
      replyEvent('r-1', phone),
      replyStep(phone, 'r-1', 0),
      t0,
    );
    expect(first.ok).toBe(true);
    // One's step was computed on no record: the record is at seq 1 now.
    expect(
      await one.commitDirect(replyEvent('r-2', phone), replyStep(phone, 'r-2', 0), t0 + 1),
    ).toEqual({ ok: false, reason: 'stale' });
    expect(await one.listApplied(keyOf(phone))).toEqual(['r-1']);
    expect(await one.pendingOutbound(keyOf(phone))).toEqual([
      replyStep(phone, 'r-1', 0).outbound[0],
    ]);
  });

  it('records a send whose value a status the other process took in had moved, keeping that status', async () => {
    const phone = '33612399003';
    await recordedSms(one, phone, 'sms-old');
    expect((await one.peekConversation(keyOf(phone)))?.record?.seq).toBe(1);
    const step = replyStep(phone, 'r-1', 1);
    const committed = await one.commitDirect(replyEvent('r-1', phone), step, t0 + 1);
    if (!committed.ok || !committed.outbox) throw new Error('expected the outbox handed over');
    // The old sms is delivered, taken in by the other process: its record in the value moves.
    const delivered = statusItem('st-1', phone, 'sms-old', 'delivered');
    await other.ingest('n-st', [delivered], t0 + 2);
    const message = step.outbound[0]!;
    const sent = sentRecord(phone, 'sms-new', message.id);
    let result: Awaited<ReturnType<Store['recordSent']>> | undefined;
    const scripts = await scriptsOf(async () => {
      result = await one.recordSent(committed.outbox!, message.id, sent, t0 + 3, [], message);
    });
    expect(scripts).toEqual(['record_sent_built', 'record_sent']);
    expect(result).toEqual({
      ok: true,
      nextOutbox: { message: null, sentSmsId: null },
      released: true,
    });
    expect(await one.getMessage(phone, 'sms-old')).toMatchObject({ status: 'delivered' });
    expect(await one.getMessage(phone, 'sms-new')).toMatchObject({ outboxId: message.id });
    expect(await one.pendingOutbound(keyOf(phone))).toEqual([]);
    expect(await one.claim('outbox', one.partitionOf(phone), leaseMs, t0 + 4)).toBeNull();
  });
});

/**
 * One process, one conversation, two writes in flight at once: the send of an answer recorded
 * while the direct commit of the next reply is still on its way to Redis. The commit's value is
 * known from when it is sent (value-cache.ts), so the send builds on it rather than on what
 * the reply's look read, and neither write falls back to the merging scripts.
 */
describe('writes of one process in flight together on Redis', () => {
  // `worker`: another process on the keyspace, whose claims this process's cache cannot know of
  // (a claim of its own makes it forget the value: its look reads again).
  const { one: store, other: worker } = twoStoresOn('value-chain');

  /** A conversation at seq 1 whose reply r-1 was committed directly, its answer's outbox handed over. */
  async function answerHandedOver(phone: string) {
    await recordedSms(store, phone, 'sms-old');
    expect((await store.peekConversation(keyOf(phone), 'sms-old'))?.record?.seq).toBe(1);
    const first = replyStep(phone, 'r-1', 1);
    const handed = await store.commitDirect(replyEvent('r-1', phone, 'sms-old'), first, t0 + 1);
    if (!handed.ok || !handed.outbox) throw new Error('expected the outbox handed over');
    return { first, outbox: handed.outbox };
  }

  it('records a send built on the direct commit sent just before it, and both are written whole', async () => {
    const phone = '33612399201';
    const { first, outbox } = await answerHandedOver(phone);
    // The next reply's look, while the first answer is in flight to the service.
    expect((await store.peekConversation(keyOf(phone), 'sms-old'))?.record?.seq).toBe(2);
    const second = replyStep(phone, 'r-2', 2);
    const message = first.outbound[0]!;
    const sent = sentRecord(phone, 'sms-1', message.id);
    let results: unknown[] = [];
    const scripts = await scriptsOf(async () => {
      results = await Promise.all([
        store.commitDirect(replyEvent('r-2', phone, 'sms-old'), second, t0 + 2),
        store.recordSent(outbox, message.id, sent, t0 + 3, [], message),
      ]);
    });
    expect(scripts).toEqual(['commit_direct', 'record_sent_built']);
    expect(results).toEqual([
      { ok: true },
      { ok: true, nextOutbox: { message: second.outbound[0], sentSmsId: null }, released: false },
    ]);
    expect(await store.getConversation(keyOf(phone))).toEqual(conversationRecord(phone, 3));
    expect(await store.listApplied(keyOf(phone))).toEqual(expect.arrayContaining(['r-1', 'r-2']));
    expect(await store.getMessage(phone, 'sms-1')).toMatchObject({ outboxId: message.id });
    expect(await store.pendingOutbound(keyOf(phone))).toEqual([second.outbound[0]]);
    const transcript = await store.readTranscript(keyOf(phone));
    // The two replies and the answer recorded after both, each once, in the order written.
    expect(transcript?.entries.slice(-3).map((entry) => [entry.direction, entry.body])).toEqual([
      ['in', 'YES'],
      ['in', 'YES'],
      ['out', 'Answer to r-1'],
    ]);
  });

  it('commits a reply once when its redelivery is committed while the first commit is in flight', async () => {
    const phone = '33612399203';
    await recordedSms(store, phone, 'sms-old');
    // Both deliveries looked before either committed: each stepped the same event.
    expect((await store.peekConversation(keyOf(phone), 'sms-old'))?.record?.seq).toBe(1);
    const step = replyStep(phone, 'r-1', 1);
    const event = replyEvent('r-1', phone, 'sms-old');
    let results: Array<Awaited<ReturnType<Store['commitDirect']>>> = [];
    const scripts = await scriptsOf(async () => {
      results = await Promise.all([
        store.commitDirect(event, step, t0 + 1),
        store.commitDirect(event, step, t0 + 1),
      ]);
    });
    // The second found the event in the first's value, still in flight: Redis answers it, after
    // the first, by the merging script.
    expect(scripts).toEqual(['commit_direct', 'commit_step']);
    expect(results.map((result) => (result.ok ? 'ok' : result.reason))).toEqual([
      'ok',
      'duplicate',
    ]);
    expect((await store.listApplied(keyOf(phone))).filter((id) => id === 'r-1')).toHaveLength(1);
    expect(await store.pendingOutbound(keyOf(phone))).toEqual(step.outbound);
    expect(await store.getConversation(keyOf(phone))).toEqual(conversationRecord(phone, 2));
  });

  it('calls no redelivery a duplicate when the commit in flight that has its event is refused', async () => {
    const phone = '33612399204';
    await recordedSms(store, phone, 'sms-old');
    expect((await store.peekConversation(keyOf(phone), 'sms-old'))?.record?.seq).toBe(1);
    // A worker of another process holds the conversation: the direct commit of r-1 will be
    // refused.
    await worker.ingest('n-x', [{ event: replyEvent('x-1', phone, 'sms-old') }], t0 + 1);
    const inbox = await claimOf(worker, 'inbox', phone, t0 + 1);
    const step = replyStep(phone, 'r-1', 1);
    const event = replyEvent('r-1', phone, 'sms-old');
    const results = await Promise.all([
      store.commitDirect(event, step, t0 + 2),
      store.commitDirect(event, step, t0 + 2),
    ]);
    // Neither applied it: both go to the mailbox (ingest), where it is taken in once.
    expect(results).toEqual([
      { ok: false, reason: 'busy' },
      { ok: false, reason: 'busy' },
    ]);
    expect(await store.listApplied(keyOf(phone))).not.toContain('r-1');
    await worker.release(inbox, t0 + 3);
  });

  it('falls back to the merging scripts, losing nothing, when the write sent first is refused', async () => {
    const phone = '33612399202';
    const { first, outbox } = await answerHandedOver(phone);
    expect((await store.peekConversation(keyOf(phone), 'sms-old'))?.record?.seq).toBe(2);
    // A worker of another process holds the conversation now: the direct commit is refused
    // (busy).
    await worker.ingest('n-x', [{ event: replyEvent('x-1', phone, 'sms-old') }], t0 + 2);
    const inbox = await claimOf(worker, 'inbox', phone, t0 + 2);
    const message = first.outbound[0]!;
    const sent = sentRecord(phone, 'sms-1', message.id);
    let results: unknown[] = [];
    const scripts = await scriptsOf(async () => {
      results = await Promise.all([
        store.commitDirect(replyEvent('r-2', phone, 'sms-old'), replyStep(phone, 'r-2', 2), t0 + 3),
        store.recordSent(outbox, message.id, sent, t0 + 4, [], message),
      ]);
    });
    // The send was built on a commit that never happened: its check fails, and it merges.
    expect(scripts).toEqual(['commit_direct', 'record_sent_built', 'record_sent']);
    expect(results).toEqual([
      { ok: false, reason: 'busy' },
      { ok: true, nextOutbox: { message: null, sentSmsId: null }, released: true },
    ]);
    expect(await store.getMessage(phone, 'sms-1')).toMatchObject({ outboxId: message.id });
    expect(await store.listApplied(keyOf(phone))).not.toContain('r-2');
    expect(await store.pendingOutbound(keyOf(phone))).toEqual([]);
    await worker.release(inbox, t0 + 5);
  });
});

/**
 * The sender's last look with the message it holds: one lean call when nothing changed since
 * the message was handed over (`last-look-5.lua`), the full read when something did.
 */
describe("the sender's last look on Redis", () => {
  const store = storeOn('last-look');

  it('makes one lean call for a head as it was handed over, and reads the outbox when the phone opted out since', async () => {
    const phone = '33612399101';
    const message = outboundMessage(phone, 'e-0:0');
    await queueOutbound(store, phone, [message]);
    const claim = await claimOf(store, 'outbox', phone, t0);
    let view: Awaited<ReturnType<Store['readOutbox']>> | undefined;
    const lean = await scriptsOf(async () => {
      view = await store.readOutbox(claim, t0 + 1, leaseMs, message);
    });
    expect(lean).toEqual(['last_look']);
    expect(view).toEqual({ message, sentSmsId: null });
    await store.addSuppressions('paris', [{ phone, at: t0 + 2 }], 'api');
    const full = await scriptsOf(async () => {
      view = await store.readOutbox(claim, t0 + 3, leaseMs, message);
    });
    expect(full).toEqual(['last_look', 'read_outbox']);
    expect(view).toMatchObject({ message: null, dropped: [{ id: 'e-0:0', reason: 'suppressed' }] });
  });
});

/**
 * Write marks (conversation-value.ts): a value built in the process starts with a mark line of
 * its own, and the next write built on it sends that line alone for Redis to check; every
 * script that merges into the value drops the mark, so a mark found in Redis always means the
 * bytes its writer built.
 */
describe('write marks on Redis', () => {
  const { prefix, one, other } = twoStoresOn('write-mark');
  const valueKey = (phone: string) => `${prefix}{p${one.partitionOf(phone)}}:conv:paris:${phone}`;
  const markOf = (value: string | null) => /^~([^\n]+)\n\d+\n/.exec(value ?? '')?.[1];

  /** Phone's conversation at seq 1 (an sms recorded), looked at by `one`, then r-1 committed directly. */
  async function committedDirectly(phone: string) {
    await recordedSms(one, phone, 'sms-old');
    const merged = await redis.get(valueKey(phone));
    expect(merged).toMatch(/^1\n/);
    expect((await one.peekConversation(keyOf(phone)))?.record?.seq).toBe(1);
    const step = replyStep(phone, 'r-1', 1);
    let committed: Awaited<ReturnType<Store['commitDirect']>> | undefined;
    const scripts = await scriptsOf(async () => {
      committed = await one.commitDirect(replyEvent('r-1', phone), step, t0 + 1);
    });
    expect(scripts).toEqual(['commit_direct']);
    // Built on a value with no mark: checked against the whole of it.
    expect(calledArgs[0]?.[0]).toBe(merged);
    if (!committed?.ok || !committed.outbox) throw new Error('expected the outbox handed over');
    const mark = markOf(await redis.get(valueKey(phone)));
    expect(mark).toMatch(/^[A-Za-z0-9_-]{9,}$/);
    const message = step.outbound[0]!;
    return { outbox: committed.outbox, message, mark: mark! };
  }

  it('checks a write built on a value of its own by the mark alone', async () => {
    const phone = '33612399301';
    const { outbox, message, mark } = await committedDirectly(phone);
    const sent = sentRecord(phone, 'sms-new', message.id);
    const scripts = await scriptsOf(() =>
      one.recordSent(outbox, message.id, sent, t0 + 2, [], message),
    );
    expect(scripts).toEqual(['record_sent_built']);
    expect(calledArgs[0]?.[2]).toBe(`~${mark}\n`);
    const after = markOf(await redis.get(valueKey(phone)));
    expect(after).toBeDefined();
    expect(after).not.toBe(mark);
    expect(await one.getMessage(phone, 'sms-new')).toMatchObject({ outboxId: message.id });
    expect(await one.getConversation(keyOf(phone))).toEqual(conversationRecord(phone, 2));
  });

  it('drops the mark when a script merges into the value, so a write built on the old mark merges too', async () => {
    const phone = '33612399302';
    const { outbox, message, mark } = await committedDirectly(phone);
    // The other process takes in a status: the script merges it into the value.
    await other.ingest('n-st', [statusItem('st-1', phone, 'sms-old', 'delivered')], t0 + 2);
    const merged = await redis.get(valueKey(phone));
    expect(merged).toMatch(/^2\n/);
    const sent = sentRecord(phone, 'sms-new', message.id);
    const scripts = await scriptsOf(() =>
      one.recordSent(outbox, message.id, sent, t0 + 3, [], message),
    );
    // Built on the marked value the merge replaced: refused, then merged.
    expect(scripts).toEqual(['record_sent_built', 'record_sent']);
    expect(calledArgs[0]?.[2]).toBe(`~${mark}\n`);
    expect(markOf(await redis.get(valueKey(phone)))).toBeUndefined();
    expect(await one.getMessage(phone, 'sms-old')).toMatchObject({ status: 'delivered' });
    expect(await one.getMessage(phone, 'sms-new')).toMatchObject({ outboxId: message.id });
    expect(await one.getConversation(keyOf(phone))).toEqual(conversationRecord(phone, 2));
  });
});

/**
 * A reply's look (`peekConversation`) from the value this process wrote or read last: no call
 * while such values were mostly still Redis's, the commit checking it; reads again once they
 * were found stale (another process writes the same conversations), until they are found fresh.
 */
describe("a reply's look on Redis", () => {
  const { one, other } = twoStoresOn('reply-look');

  /** A conversation at seq 2: r-1 committed directly by `one`, its answer sms-1 recorded sent. */
  async function answered(phone: string) {
    await recordedSms(one, phone, 'sms-old');
    expect((await one.peekConversation(keyOf(phone), 'sms-old'))?.record?.seq).toBe(1);
    const step = replyStep(phone, 'r-1', 1);
    const handed = await one.commitDirect(replyEvent('r-1', phone, 'sms-old'), step, t0 + 1);
    if (!handed.ok || !handed.outbox) throw new Error('expected the outbox handed over');
    const message = step.outbound[0]!;
    const record = sentRecord(phone, 'sms-1', message.id);
    expect(await one.recordSent(handed.outbox, message.id, record, t0 + 2, [], message)).toEqual({
      ok: true,
      nextOutbox: { message: null, sentSmsId: null },
      released: true,
    });
  }

  it('answers from the value it wrote with no call, and reads the origin alone when that value does not hold it', async () => {
    const phone = '33612399301';
    await answered(phone);
    let view: Awaited<ReturnType<Store['peekConversation']>> = null;
    expect(
      await commandsOf(async () => {
        view = await one.peekConversation(keyOf(phone), 'sms-1');
      }),
    ).toEqual([]);
    expect(view).toMatchObject({
      record: conversationRecord(phone, 2),
      origin: { smsId: 'sms-1', outboxId: 'r-1:0' },
    });
    // An sms the value's messages line does not hold: its own record, read alone.
    expect(
      await commandsOf(async () => {
        view = await one.peekConversation(keyOf(phone), 'sms-nowhere');
      }),
    ).toEqual(['get']);
    expect(view).toEqual({ record: conversationRecord(phone, 2), origin: null });
    // The commit built on it is written whole.
    const scripts = await scriptsOf(() =>
      one.commitDirect(replyEvent('r-2', phone, 'sms-1'), replyStep(phone, 'r-2', 2), t0 + 3),
    );
    expect(scripts).toEqual(['commit_direct']);
    expect(await one.getConversation(keyOf(phone))).toEqual(conversationRecord(phone, 3));
  });

  it('refuses as busy, changing nothing, a commit built on that look when another process holds the conversation', async () => {
    const phone = '33612399302';
    await answered(phone);
    await other.ingest('n-x', [{ event: replyEvent('x-1', phone, 'sms-1') }], t0 + 3);
    const inbox = await claimOf(other, 'inbox', phone, t0 + 3);
    expect(await commandsOf(() => one.peekConversation(keyOf(phone), 'sms-1'))).toEqual([]);
    expect(
      await one.commitDirect(replyEvent('r-2', phone, 'sms-1'), replyStep(phone, 'r-2', 2), t0 + 4),
    ).toEqual({ ok: false, reason: 'busy' });
    expect(await one.listApplied(keyOf(phone))).not.toContain('r-2');
    expect(await one.getConversation(keyOf(phone))).toEqual(conversationRecord(phone, 2));
    await other.release(inbox, t0 + 5);
  });

  it('reads again once the values it knows were found stale, and trusts them again once reads find them fresh', async () => {
    /** Whether each look read (an MGET) rather than answering from the value known. */
    const reads: boolean[] = [];
    // Each conversation written by the other process after this one learnt its value, until a
    // look reads (bounded: it must come).
    for (let i = 0; i < 30 && !reads.at(-1); i++) {
      const phone = `336124000${String(i).padStart(2, '0')}`;
      await answered(phone);
      expect((await other.peekConversation(keyOf(phone), 'sms-1'))?.record?.seq).toBe(2);
      const theirs = replyStep(phone, 'o-1', 2);
      expect(await other.commitDirect(replyEvent('o-1', phone, 'sms-1'), theirs, t0 + 3)).toEqual(
        expect.objectContaining({ ok: true }),
      );
      const commands = await commandsOf(() => one.peekConversation(keyOf(phone), 'sms-1'));
      reads.push(commands.includes('mget'));
      // Built on the look: refused (the other's commit overtook it), whichever way it looked,
      // and nothing of the other's commit is lost.
      const mine = replyStep(phone, 'r-2', 2);
      const result = await one.commitDirect(replyEvent('r-2', phone, 'sms-1'), mine, t0 + 4);
      expect(result.ok).toBe(false);
      expect(await one.getConversation(keyOf(phone))).toEqual(conversationRecord(phone, 3));
    }
    expect(reads[0]).toBe(false);
    expect(reads.at(-1)).toBe(true);
    // A status's look reads then too, for a value this process wrote last.
    await answered('33612400099');
    const statusLook = await commandsOf(() =>
      one.peekConversation(keyOf('33612400099'), 'sms-1', statusRank.delivered),
    );
    expect(statusLook).toContain('mget');
    // Conversations nobody else writes: the reads find this process's values fresh, until a
    // look answers from them again (bounded: it must come).
    const readsAfter: boolean[] = [];
    for (let i = 0; i < 60 && readsAfter.at(-1) !== false; i++) {
      const phone = `336124100${String(i).padStart(2, '0')}`;
      await answered(phone);
      const commands = await commandsOf(() => one.peekConversation(keyOf(phone), 'sms-1'));
      readsAfter.push(commands.includes('mget'));
    }
    expect(readsAfter[0]).toBe(true);
    expect(readsAfter.at(-1)).toBe(false);
    // And a status's look answers from the value known again.
    await answered('33612410099');
    const statusAfter = await commandsOf(() =>
      one.peekConversation(keyOf('33612410099'), 'sms-1', statusRank.delivered),
    );
    expect(statusAfter).toEqual([]);
  });
});
