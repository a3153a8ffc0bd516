// Counts the Lua strings Redis makes per turn, and their bytes: a figure that, unlike the time
// loops, does not drift between runs. Drives `turns` turns on each of `phones` phones through a
// checkout's Redis store as the engine does (ingest with claimFor, commitStep with one answer
// and claimOutbox, recordSent), so the same command on two checkouts gives the same turns.
// Run by lua-strings.sh, which counts with a uprobe on the redis-server that makes Lua strings:
//   bash bench/script-cost/lua-strings.sh <checkout root> <label>
// Usage here: tsx bench/script-cost/lua-strings.ts <checkout root> <redis url> <prefix> <phones> <turns>
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import type {
  MailboxEvent,
  MessageRecord,
  OutboundMessage,
  TimerRecord,
} from '../../src/store/records.ts';
import type { createRedisStore as CreateRedisStore } from '../../src/store/redis/create-redis-store.ts';

const [
  tree = '.',
  url = 'redis://127.0.0.1:6379',
  prefix = 'lua-strings',
  phones = '40',
  turns = '20',
] = process.argv.slice(2);
const module = (await import(
  new URL('src/store/redis/create-redis-store.ts', pathToFileURL(`${resolve(tree)}/`)).href
)) as { createRedisStore: typeof CreateRedisStore };
const redis = new Redis(url);
const store = module.createRedisStore({ redis, prefix, partitions: 16 });
const location = 'paris';
const startedAt = 1_763_700_000_000;
const expiryMs = 86_400_000;
let now = startedAt;
const lastSms = new Map<string, string>();

for (let t = 0; t < Number(turns); t++) {
  for (let p = 0; p < Number(phones); p++) {
    const phone = `33612${String(p).padStart(6, '0')}`;
    const runId = `run-${p}`;
    now += 1;
    const id = `bench-${t}-${p}:0`;
    const event: MailboxEvent = {
      v: 1,
      id,
      location,
      receivedAt: now,
      kind: 'reply',
      phone,
      body: `ECHO ${t}`,
      to: '38200',
      originSmsId: lastSms.get(phone) ?? 'x',
    };
    const { claims = [] } = await store.ingest(`bench-${t}-${p}`, [{ event }], now, {
      leaseMs: 30_000,
      max: 1,
    });
    const claim = claims[0];
    if (!claim) throw new Error(`turn ${t} of phone ${p}: no claim`);
    const seq = claim.view.record?.seq ?? 0;
    const message: OutboundMessage = {
      v: 1,
      id: `${id}:0`,
      location,
      phone,
      runId,
      botId: 'bench-echo',
      body: `#${t}: ECHO ${t}`,
      queuedAt: now,
      attempts: 0,
      loopGuard: { max: 10, windowMs: 60_000 },
    };
    const expiry: TimerRecord = {
      v: 1,
      id: `${runId}:replyflow.expire`,
      location,
      phone,
      runId,
      sendId: 'replyflow.expire',
      dueAt: now + expiryMs,
      event: { type: 'conversation.expire' },
    };
    const committed = await store.commitStep(
      claim,
      {
        eventId: id,
        expectedSeq: seq,
        record: {
          v: 1,
          location,
          phone,
          runId,
          botId: 'bench-echo',
          botVersion: 'v1',
          seq: seq + 1,
          status: 'active',
          startedAt,
          updatedAt: now,
          timers: { [expiry.id]: expiry.dueAt },
          snapshot: { value: 'talking', context: { turns: t, last: `ECHO ${t}` } },
        },
        outbound: [message],
        timers: { set: [expiry], cancel: [] },
        claimOutbox: { leaseMs: 30_000 },
      },
      now,
    );
    if (!committed.ok || !committed.outbox) throw new Error(`turn ${t} of phone ${p}: commit`);
    const smsId = `sms-${t}-${p}`;
    const at = new Date(now).toISOString();
    const record: MessageRecord = {
      v: 1,
      location,
      phone,
      smsId,
      status: 'pending',
      statusReason: '',
      runId,
      botId: 'bench-echo',
      outboxId: message.id,
      encoding: 'GSM-7',
      parts: 1,
      price: 0.0075,
      createdAt: at,
      updatedAt: at,
    };
    const sent = await store.recordSent(committed.outbox, message.id, record, now);
    if (!sent.ok) throw new Error(`turn ${t} of phone ${p}: recordSent`);
    lastSms.set(phone, smsId);
  }
}
await store.close();
await redis.quit();
