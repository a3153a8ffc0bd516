import { afterAll, describe, expect, it } from 'vitest';
import { createRedisStore } from '../../../src/store/redis/create-redis-store.ts';
import { storeKeys } from '../../../src/store/redis/keys.ts';
import { storeLimits } from '../../../src/store/store-limits.ts';
import { connectTestRedis, randomPrefix } from '../../support/redis.ts';
import {
  claimOf,
  keyOf,
  leaseMs,
  outboundMessage,
  phoneInSamePartition,
  phonesInDistinctPartitions,
  queueOutbound,
  replyEvent,
  sentRecord,
  statusItem,
  t0,
  timerRecord,
} from './contract/fixtures.ts';

/** CRC16/XMODEM, the checksum Redis Cluster maps keys to slots with (`CLUSTER KEYSLOT` needs cluster mode). */
function crc16(data: Buffer): number {
  let crc = 0;
  for (const byte of data) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** The slot of a key: only the first non-empty `{…}` is hashed when there is one. */
function keySlot(key: string): number {
  const open = key.indexOf('{');
  const close = open >= 0 ? key.indexOf('}', open + 1) : -1;
  const hashed = close > open + 1 ? key.slice(open + 1, close) : key;
  return crc16(Buffer.from(hashed)) % 16_384;
}

describe('redis key layout', () => {
  const redis = connectTestRedis();
  afterAll(() => redis.quit());

  it('computes slots as Redis Cluster does', () => {
    expect(crc16(Buffer.from('123456789'))).toBe(0x31c3);
    expect(keySlot('somekey')).toBe(11_058);
    expect(keySlot('foo{hash_tag}')).toBe(2_515);
    expect(keySlot('bar{hash_tag}')).toBe(2_515);
  });

  it('builds every key of a conversation and of its partition in one slot', () => {
    const keys = storeKeys('rf:', 16);
    const c = keys.conversation({ location: 'paris', phone: '33612345678' });
    const names = [
      c.list('inbox'),
      c.list('outbox'),
      c.lock('inbox'),
      c.lock('outbox'),
      c.ready('inbox'),
      c.ready('outbox'),
      c.record,
      c.message('sms-1'),
      c.earlyStatuses('sms-1'),
      c.timers,
      c.unknownMessages,
      keys.partition(c.number).timers,
      c.listPrefix('inbox'),
      c.lockPrefix('outbox'),
      c.messagePrefix,
      c.earlyStatusPrefix,
    ];
    expect(c.list('inbox')).toBe(`rf:{p${c.number}}:inbox:paris:33612345678`);
    expect(new Set(names.map(keySlot))).toEqual(new Set([keySlot(`{p${c.number}}`)]));
  });

  it('leaves, after a whole conversation, only keys in the slot of their partition', async () => {
    const prefix = randomPrefix('slots');
    const store = createRedisStore({ redis, prefix });
    const [phone = '', otherPartition = ''] = phonesInDistinctPartitions(store, 2);
    const neighbour = phoneInSamePartition(store, phone);
    for (const p of [phone, neighbour, otherPartition]) {
      await queueOutbound(store, p, [
        outboundMessage(p, 'e-0:0'),
        outboundMessage(p, 'e-0:1'),
        outboundMessage(p, 'e-0:2'),
      ]);
      const outbox = await claimOf(store, 'outbox', p, t0);
      await store.recordSent(outbox, 'e-0:0', sentRecord(p, `sms-${p}`, 'e-0:0'), t0);
      const failure = {
        ...replyEvent('f-1', p),
        kind: 'status' as const,
        smsId: '',
        status: 'errored' as const,
        statusReason: 'x',
      };
      await store.failOutbound(outbox, 'e-0:1', failure, t0);
      await store.deferOutbound(outbox, 'e-0:2', 1, t0 + leaseMs);
      // sms-early-… was never recorded sent (the sender died after POST /sms): its status waits.
      await store.ingest(
        `n-${p}`,
        [
          statusItem('s-1', p, `sms-${p}`, 'delivered'),
          { event: replyEvent('r-1', p) },
          statusItem('s-2', p, `sms-early-${p}`, 'sent'),
        ],
        t0,
      );
      const inbox = await claimOf(store, 'inbox', p, t0 + 1);
      // The step sets two timers: one stays pending, one is moved into the mailbox.
      const { next, record } = await store.readInbox(inbox);
      const timers = [timerRecord(p, 'later', t0 + 60_000), timerRecord(p, 'soon', t0 + 2)];
      const step = { eventId: next!.id, expectedSeq: record!.seq, record: null, outbound: [] };
      await store.commitStep(inbox, { ...step, timers: { set: timers, cancel: [] } }, t0 + 1);
      await store.claimDueTimers(store.partitionOf(p), t0 + 2, 10);
    }
    await store.pushDeadLetter({ v: 1, at: t0, reason: 'malformed', body: '{}' });

    const names = await redis.keys(`${prefix}*`);
    const kinds = new Set(names.map((name) => name.slice(prefix.length).split(':')[1]));
    expect(kinds).toEqual(
      new Set([
        'inbox',
        'outbox',
        'conv',
        'lock',
        'ready',
        'sms',
        'early-status',
        'timers',
        'unknown-sms',
        undefined,
      ]),
    );
    for (const name of names) {
      if (name === `${prefix}dead-letters`) continue;
      const partition = /\{p(\d+)\}/.exec(name)?.[1];
      expect(partition, name).toBeDefined();
      expect(keySlot(name), name).toBe(keySlot(`{p${partition}}`));
    }
    const slotOf = (p: string) =>
      new Set(names.filter((n) => n.includes(`{p${store.partitionOf(p)}}`)).map(keySlot));
    expect(slotOf(phone)).toEqual(new Set([keySlot(`{p${store.partitionOf(neighbour)}}`)]));
    expect(slotOf(otherPartition).size).toBe(1);
    expect(await store.pendingEvents(keyOf(phone))).toHaveLength(3);
    expect(await store.pendingTimers(keyOf(phone))).toHaveLength(1);
    const early = storeKeys(prefix, store.partitions)
      .conversation(keyOf(phone))
      .earlyStatuses(`sms-early-${phone}`);
    expect(names).toContain(early);
    expect(await redis.ttl(early)).toBeGreaterThan(storeLimits.earlyStatusTtlMs / 1000 - 60);
    expect(await redis.ttl(early)).toBeLessThanOrEqual(storeLimits.earlyStatusTtlMs / 1000);
    await store.close();
    await redis.unlink(...names);
  });
});
