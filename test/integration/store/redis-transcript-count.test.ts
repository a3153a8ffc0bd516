import { afterAll, describe, expect, it } from 'vitest';
import type { ConversationRecord, ReplyEvent } from '../../../src/store/records.ts';
import { createRedisStore } from '../../../src/store/redis/create-redis-store.ts';
import { storeKeys } from '../../../src/store/redis/keys.ts';
import type { Store } from '../../../src/store/store.ts';
import { storeLimits } from '../../../src/store/store-limits.ts';
import { connectTestRedis, randomPrefix } from '../../support/redis.ts';
import {
  claimOf,
  conversationRecord,
  keyOf,
  phonesInDistinctPartitions,
  replyEvent,
  t0,
} from './contract/fixtures.ts';

// The Redis driver keeps a count of entries first in a conversation's transcript line
// (`#<n>`), so that no script counts the line's tabs (string.gsub cost 15 ns a byte, twice a
// turn). A value written before the count (no `#`) must read and grow as before. The line
// keeps at most 8 entries: past that, all but the newest 4 move to the conversation's
// transcript list, so that the value the scripts of every turn copy stays short.

const redis = connectTestRedis();
const prefix = randomPrefix('transcript-count');
const store = createRedisStore({ redis, prefix, partitions: 16 });
afterAll(async () => {
  await store.close();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.unlink(...keys);
  await redis.quit();
});

const reply = (phone: string, n: number, bodyPad = ''): ReplyEvent => ({
  ...replyEvent(`r-${n}`, phone),
  body: `m${n}${bodyPad}`,
  receivedAt: t0 + n,
});

const recordIn = (phone: string, seq: number, n: number, pad = ''): ConversationRecord => ({
  ...conversationRecord(phone, seq),
  snapshot: { value: `s${n}`, context: pad === '' ? {} : { pad } },
});

/** Replies `from`..`to` taken in and stepped, one commit each, as the worker does. */
async function stepReplies(
  s: Store,
  phone: string,
  from: number,
  to: number,
  pad = '',
  bodyPad = '',
): Promise<void> {
  const replies = Array.from({ length: to - from + 1 }, (_, i) => reply(phone, from + i, bodyPad));
  await s.ingest(
    `n-${from}`,
    replies.map((event) => ({ event })),
    t0 + from,
  );
  const claim = await claimOf(s, 'inbox', phone, t0 + from);
  let seq = claim.view.record?.seq ?? 0;
  for (const event of replies) {
    const n = Number(event.id.slice(2));
    const result = await s.commitStep(
      claim,
      {
        eventId: event.id,
        expectedSeq: seq,
        record: recordIn(phone, seq + 1, n, pad),
        outbound: [],
      },
      t0 + from,
    );
    expect(result.ok).toBe(true);
    seq += 1;
  }
  await s.release(claim, t0 + from);
}

async function valueKey(phone: string): Promise<string> {
  const keys = await redis.keys(`${prefix}*conv:*${phone}`);
  expect(keys).toHaveLength(1);
  return keys[0]!;
}

/** The value's sixth line, the transcript. */
const transcriptLine = (value: string) => value.split('\n').slice(5).join('\n');

/** The conversation's transcript list, beside its value, as keys.ts names it. */
const storeKeyNames = storeKeys(prefix, 16);
const listKeyOf = (phone: string) => storeKeyNames.conversation(keyOf(phone)).transcript();

/** The count a transcript line starts with, checked against its entries. */
function inlineCount(value: string): number {
  const line = transcriptLine(value);
  const count = Number(/^#(\d+)\t/.exec(line)?.[1]);
  expect(line.split('\t')).toHaveLength(count + 1);
  return count;
}

describe('the Redis transcript line', () => {
  it('starts with its count, reads a line from before the count, and keeps the cap', async () => {
    const [phone = ''] = phonesInDistinctPartitions(store, 1);
    await stepReplies(store, phone, 1, 3);
    const key = await valueKey(phone);
    const value = (await redis.get(key)) ?? '';
    expect(transcriptLine(value)).toMatch(/^#3\ti\[/);

    // The same value as an earlier release wrote it: no count.
    const before = value.replace(/\n#3\t/, '\n');
    expect(transcriptLine(before)).toMatch(/^i\[/);
    await redis.set(key, before, 'KEEPTTL');
    expect((await store.readTranscript(keyOf(phone)))?.entries.map((e) => e.body)).toEqual([
      'm1',
      'm2',
      'm3',
    ]);

    // Past the cap from there: the count is taken from the tabs once, then kept; the line
    // keeps 4 to 8 entries, the list the older ones, and the transcript the newest `cap`.
    const cap = storeLimits.transcriptEntries;
    const last = 3 + cap;
    await stepReplies(store, phone, 4, last);
    const after = (await redis.get(key)) ?? '';
    const inline = inlineCount(after);
    expect(inline).toBeGreaterThanOrEqual(4);
    expect(inline).toBeLessThanOrEqual(8);
    expect(transcriptLine(after)).toContain(`"m${last}"`);
    const list = await redis.lrange(listKeyOf(phone), 0, -1);
    expect(list.length).toBeGreaterThanOrEqual(cap - inline);
    expect(list.length).toBeLessThanOrEqual(cap - 4);
    // Active: no TTL, as the value.
    expect(await redis.pttl(listKeyOf(phone))).toBe(-1);
    const entries = (await store.readTranscript(keyOf(phone)))?.entries ?? [];
    expect(entries).toHaveLength(cap);
    expect(entries[0]).toEqual({ direction: 'in', at: t0 + 4, body: 'm4', stateAfter: 's4' });
    expect(entries.at(-1)).toEqual({
      direction: 'in',
      at: t0 + last,
      body: `m${last}`,
      stateAfter: `s${last}`,
    });
    expect(entries.map((entry) => entry.body)).toEqual(
      Array.from({ length: cap }, (_, i) => `m${4 + i}`),
    );
  });

  it('moves a whole line an earlier release kept in the value to the list on its next entry', async () => {
    const [, , , phone = ''] = phonesInDistinctPartitions(store, 4);
    await stepReplies(store, phone, 1, 1);
    const key = await valueKey(phone);
    const value = (await redis.get(key)) ?? '';
    const cap = storeLimits.transcriptEntries;
    // As a release before the list wrote it: `cap` entries in the line, no list.
    const entry = (n: number) => `i[${t0 + n},"m${n}","s${n}"]`;
    const old = Array.from({ length: cap }, (_, i) => entry(i + 1)).join('\t');
    await redis.set(key, value.replace(/\n#1\t.*$/s, `\n#${cap}\t${old}`), 'KEEPTTL');
    expect(inlineCount((await redis.get(key)) ?? '')).toBe(cap);

    await stepReplies(store, phone, cap + 1, cap + 1);
    expect(inlineCount((await redis.get(key)) ?? '')).toBe(4);
    expect(await redis.llen(listKeyOf(phone))).toBe(cap - 4);
    const entries = (await store.readTranscript(keyOf(phone)))?.entries ?? [];
    expect(entries.map((e) => e.body)).toEqual(Array.from({ length: cap }, (_, i) => `m${i + 2}`));
  });

  it('gives the list the TTL of the value when the conversation ends', async () => {
    const [, , , , phone = ''] = phonesInDistinctPartitions(store, 5);
    await stepReplies(store, phone, 1, 12);
    const key = await valueKey(phone);
    expect(await redis.llen(listKeyOf(phone))).toBeGreaterThan(0);
    expect(await redis.pttl(listKeyOf(phone))).toBe(-1);
    // The last step ends the run: the value is kept for the retention, and so is the list.
    await store.ingest('n-13', [{ event: reply(phone, 13) }], t0 + 13);
    const claim = await claimOf(store, 'inbox', phone, t0 + 13);
    const ended = { ...recordIn(phone, 13, 13), status: 'done' as const };
    const result = await store.commitStep(
      claim,
      { eventId: 'r-13', expectedSeq: 12, record: ended, outbound: [] },
      t0 + 13,
    );
    expect(result.ok).toBe(true);
    const valueTtl = await redis.pttl(key);
    const listTtl = await redis.pttl(listKeyOf(phone));
    expect(valueTtl).toBeGreaterThan(0);
    expect(listTtl).toBeGreaterThan(0);
    expect(Math.abs(valueTtl - listTtl)).toBeLessThan(5_000);
    expect((await store.readTranscript(keyOf(phone)))?.entries).toHaveLength(13);
  });

  // Reads that rewrite nothing (claims, read-inbox, the send-time check) take the value less
  // its transcript with a GETRANGE of its first 2 KiB when the other lines fit there, with a
  // GET otherwise: either way the worker sees the whole record.
  it.each([
    ['fit in the first 2 KiB', ''],
    ['do not fit in the first 2 KiB', 'x'.repeat(3_000)],
  ])(
    'gives the worker the whole record after a long transcript when the other lines %s',
    async (_, pad) => {
      const phones = phonesInDistinctPartitions(store, 3);
      const phone = phones[pad === '' ? 1 : 2] ?? '';
      // Long replies: the line's few entries are longer than 2 KiB together.
      await stepReplies(store, phone, 1, 100, pad, 'y'.repeat(400));
      const value = (await redis.get(await valueKey(phone))) ?? '';
      expect(transcriptLine(value).length).toBeGreaterThan(2_048);
      await store.ingest('n-101', [{ event: reply(phone, 101) }], t0 + 101);
      const claim = await claimOf(store, 'inbox', phone, t0 + 101);
      expect(claim.view.record).toEqual(recordIn(phone, 100, 100, pad));
      expect(claim.view.next?.id).toBe('r-101');
      await store.release(claim, t0 + 101);
      // A redelivery of a stepped reply is known from the applied log, read the same way.
      const again = await store.ingest('n-100', [{ event: reply(phone, 100) }], t0 + 102);
      expect(again.duplicate).toBe(true);
    },
  );
});
