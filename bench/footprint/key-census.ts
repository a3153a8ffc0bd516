import type { Redis } from 'ioredis';
import { keyTypeOf } from './key-type-of.ts';

/** What the census found of one key type (`keyTypeOf`). */
export interface KeyTypeCount {
  type: string;
  /** The Redis data type of the sampled keys (`hash`, `list`…; several joined by `/`). */
  redisType: string;
  count: number;
  /** Keys with no expiry (PTTL −1): they stay until something deletes them. */
  noTtl: number;
  /** Keys with an expiry, and the shortest and longest time left among them, ms. */
  withTtl: number;
  minTtlMs: number | undefined;
  maxTtlMs: number | undefined;
  /** When the last of its keys with an expiry expires (epoch ms, from the PTTL read). */
  lastExpiryAt: number | undefined;
  /** Keys measured with `MEMORY USAGE … SAMPLES 0` (a uniform sample of the type). */
  sampled: number;
  /** Mean `MEMORY USAGE` of the sampled keys, bytes. */
  meanBytes: number;
  /** `meanBytes × count`: the type's estimated total, bytes. */
  totalBytes: number;
}

export interface KeyCensus {
  keys: number;
  /** Heaviest type first. */
  types: KeyTypeCount[];
  /** Sum of the types' estimated totals, bytes (keys only: not Redis's fixed overhead). */
  totalBytes: number;
  tookMs: number;
}

/**
 * Walks the whole keyspace with SCAN, classifies each key by `keyTypeOf`, reads every key's
 * PTTL (pipelined per SCAN batch) and measures a uniform sample of up to `samplePerType` keys
 * per type (reservoir sampling over the walk) with `MEMORY USAGE … SAMPLES 0`, pipelined.
 * Meant for a server of the bench's own: it reads every key.
 */
export async function takeKeyCensus(
  redis: Redis,
  prefix: string,
  options: { samplePerType?: number } = {},
): Promise<KeyCensus> {
  const started = Date.now();
  const samplePerType = options.samplePerType ?? 2_000;
  interface Tally {
    count: number;
    noTtl: number;
    withTtl: number;
    minTtlMs: number | undefined;
    maxTtlMs: number | undefined;
    lastExpiryAt: number | undefined;
    reservoir: string[];
  }
  const tallies = new Map<string, Tally>();
  // SCAN may return a key twice (a rehash during the walk): count each once.
  const seen = new Set<string>();
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'COUNT', 1000);
    cursor = next;
    const keys = batch.filter((key) => !seen.has(key));
    if (keys.length === 0) continue;
    const pipeline = redis.pipeline();
    for (const key of keys) pipeline.pttl(key);
    const ttls = (await pipeline.exec()) ?? [];
    const readAt = Date.now();
    keys.forEach((key, i) => {
      const ttl = Number(ttls[i]?.[1]);
      // -2: the key expired or was deleted since the SCAN saw it.
      if (ttl === -2) return;
      seen.add(key);
      const type = keyTypeOf(key, prefix);
      let tally = tallies.get(type);
      if (!tally) {
        tally = {
          count: 0,
          noTtl: 0,
          withTtl: 0,
          minTtlMs: undefined,
          maxTtlMs: undefined,
          lastExpiryAt: undefined,
          reservoir: [],
        };
        tallies.set(type, tally);
      }
      tally.count++;
      if (ttl === -1) tally.noTtl++;
      else {
        tally.withTtl++;
        tally.minTtlMs = Math.min(tally.minTtlMs ?? ttl, ttl);
        tally.maxTtlMs = Math.max(tally.maxTtlMs ?? ttl, ttl);
        tally.lastExpiryAt = Math.max(tally.lastExpiryAt ?? 0, readAt + ttl);
      }
      if (tally.reservoir.length < samplePerType) tally.reservoir.push(key);
      else {
        const slot = Math.floor(Math.random() * tally.count);
        if (slot < samplePerType) tally.reservoir[slot] = key;
      }
    });
  } while (cursor !== '0');

  const types: KeyTypeCount[] = [];
  for (const [type, tally] of tallies) {
    const sizes: number[] = [];
    const redisTypes = new Set<string>();
    for (let from = 0; from < tally.reservoir.length; from += 500) {
      const pipeline = redis.pipeline();
      for (const key of tally.reservoir.slice(from, from + 500)) {
        pipeline.call('MEMORY', 'USAGE', key, 'SAMPLES', '0');
        pipeline.type(key);
      }
      const answers = (await pipeline.exec()) ?? [];
      for (let i = 0; i < answers.length; i += 2) {
        const bytes = answers[i]?.[1];
        const redisType = String(answers[i + 1]?.[1]);
        // A key gone since the walk (null, type none) is left out of the sample.
        if (typeof bytes === 'number' && redisType !== 'none') {
          sizes.push(bytes);
          redisTypes.add(redisType);
        }
      }
    }
    const meanBytes = sizes.length > 0 ? sizes.reduce((sum, n) => sum + n, 0) / sizes.length : 0;
    types.push({
      type,
      redisType: [...redisTypes].sort().join('/') || '?',
      count: tally.count,
      noTtl: tally.noTtl,
      withTtl: tally.withTtl,
      minTtlMs: tally.minTtlMs,
      maxTtlMs: tally.maxTtlMs,
      lastExpiryAt: tally.lastExpiryAt,
      sampled: sizes.length,
      meanBytes,
      totalBytes: meanBytes * tally.count,
    });
  }
  types.sort((a, b) => b.totalBytes - a.totalBytes || a.type.localeCompare(b.type));
  return {
    keys: seen.size,
    types,
    totalBytes: types.reduce((sum, type) => sum + type.totalBytes, 0),
    tookMs: Date.now() - started,
  };
}
