import { campaignId, chunkOf, parseCampaignId } from '../campaign-id.ts';
import type {
  CampaignChunk,
  CampaignMeta,
  CampaignRef,
  FiringOutcome,
  RecipientEntry,
} from '../campaign-records.ts';
import type { CampaignStore } from '../campaign-store.ts';
import { decodeRecipient, encodeRecipient } from '../recipient-value.ts';
import { storableJson } from '../storable-json.ts';
import { counterChangesJson } from './counter-changes-json.ts';
import { type RedisStoreContext, scanNodes, withStoreErrors } from './redis-store-context.ts';

type CampaignOperations = Omit<CampaignStore, 'onCampaignDue'>;

/** Sweeps this many chunks per call: a cancel of a large campaign never blocks Redis for long. */
const sweepChunksPerCall = 8;

/** The campaign operations over the Lua scripts (see `CampaignStore` and `src/store/README.md`). */
export function redisCampaignOperations(context: RedisStoreContext): CampaignOperations {
  const { redis, keys, scripts } = context;
  const partitions = keys.partitionCount;
  const everyPartition = () => Array.from({ length: partitions }, (_, p) => p);
  const campaignKeys = (ref: CampaignRef, partition: number) =>
    keys.partition(partition).campaign(campaignId(ref));

  const sumCounters = async (key: (partition: number) => string) => {
    const hashes = await withStoreErrors('readCounters', () =>
      Promise.all(everyPartition().map((p) => redis.hgetall(key(p)))),
    );
    const total: Record<string, number> = {};
    for (const hash of hashes) {
      for (const [field, count] of Object.entries(hash)) {
        total[field] = (total[field] ?? 0) + Number(count);
      }
    }
    // A field counted down to nothing (all of them moved on) is not shown.
    for (const [field, count] of Object.entries(total)) if (count === 0) delete total[field];
    return total;
  };

  return {
    async saveCampaign(meta) {
      await withStoreErrors('saveCampaign', () =>
        redis.hset(keys.campaigns(meta.location), meta.name, storableJson(meta)),
      );
    },
    async deleteCampaign(ref) {
      await withStoreErrors('deleteCampaign', () =>
        redis.hdel(keys.campaigns(ref.location), ref.name),
      );
    },
    async getCampaign(ref) {
      const json = await withStoreErrors('getCampaign', () =>
        redis.hget(keys.campaigns(ref.location), ref.name),
      );
      return json ? (JSON.parse(json) as CampaignMeta) : null;
    },
    async listCampaigns(location) {
      const locations = location
        ? [location]
        : await withStoreErrors('listCampaigns', async () =>
            (await scanKeys(redis, `${keys.campaigns('*')}`)).map((key) =>
              key.slice(keys.campaigns('').length),
            ),
          );
      const all: CampaignMeta[] = [];
      for (const name of locations) {
        const hash = await withStoreErrors('listCampaigns', () =>
          redis.hgetall(keys.campaigns(name)),
        );
        for (const json of Object.values(hash)) all.push(JSON.parse(json) as CampaignMeta);
      }
      return all.sort(
        (a, b) => a.location.localeCompare(b.location) || a.name.localeCompare(b.name),
      );
    },
    async setCampaignState(meta, state) {
      const id = campaignId(meta);
      await withStoreErrors('setCampaignState', () =>
        Promise.all(
          everyPartition().map((p) => {
            const c = campaignKeys(meta, p);
            return scripts.run(
              'set-campaign-state',
              [c.state, keys.partition(p).campaignDue, c.chunks],
              [state, id, keys.readyChannel, p],
            );
          }),
        ),
      );
    },
    async upsertRecipients(meta, generation, rows) {
      const byPartition = new Map<number, (string | number)[]>();
      for (const { row, record } of rows) {
        const partition = context.partitionOf(record.phone ?? row);
        let args = byPartition.get(partition);
        if (!args) {
          args = [campaignId(meta), generation, meta.location, keys.readyChannel, partition];
          byPartition.set(partition, args);
        }
        // Object.assign, not `{ ...record, generation, revision: 0 }`: in optimized code (V8 11)
        // that spread gave every row a map of its own, old-space garbage (bench/campaigns).
        const value = encodeRecipient(Object.assign({}, record, { generation, revision: 0 }));
        args.push(chunkOf(row, partitions, meta.chunks), row, value);
      }
      const replies = await withStoreErrors('upsertRecipients', () =>
        Promise.all(
          [...byPartition].map(([p, args]) => {
            const c = campaignKeys(meta, p);
            const pk = keys.partition(p);
            return scripts.run(
              'upsert-recipients',
              [c.chunkPrefix, c.chunks, pk.campaignDue, c.counters, pk.suppressedPrefix, c.state],
              args,
            ) as Promise<number[]>;
          }),
        ),
      );
      const outcome = { added: 0, rescheduled: 0, unchanged: 0, optedOut: 0 };
      for (const [added, rescheduled, unchanged, optedOut] of replies) {
        outcome.added += Number(added);
        outcome.rescheduled += Number(rescheduled);
        outcome.unchanged += Number(unchanged);
        outcome.optedOut += Number(optedOut);
      }
      return outcome;
    },
    async sweepRecipients(meta, generation, options = {}) {
      let cancelled = 0;
      for (let first = 0; first < meta.chunks; first += sweepChunksPerCall) {
        const last = Math.min(meta.chunks, first + sweepChunksPerCall) - 1;
        const replies = await withStoreErrors('sweepRecipients', () =>
          Promise.all(
            everyPartition().map((p) => {
              const c = campaignKeys(meta, p);
              return scripts.run(
                'sweep-recipients',
                [c.chunkPrefix, c.chunks, c.counters, keys.partition(p).campaignDue, c.state],
                [
                  first,
                  last,
                  generation,
                  campaignId(meta),
                  meta.chunks,
                  context.retention.conversationsMs,
                  options.keepRowsWithoutPhone ? '1' : '0',
                ],
              ) as Promise<number[]>;
            }),
          ),
        );
        for (const [count] of replies) cancelled += Number(count);
      }
      return cancelled;
    },
    async pruneRecipients(meta, partition, endedBefore) {
      const c = campaignKeys(meta, partition);
      let pruned = 0;
      // A few chunks per call, as a sweep: Redis is never held long.
      for (let first = 0; first < meta.chunks; first += sweepChunksPerCall) {
        const last = Math.min(meta.chunks, first + sweepChunksPerCall) - 1;
        const count = await withStoreErrors('pruneRecipients', () =>
          scripts.run('prune-recipients', [c.chunkPrefix, c.counters], [first, last, endedBefore]),
        );
        pruned += Number(count);
      }
      return pruned;
    },
    async findRecipient(meta, row) {
      const chunk = chunkOf(row, partitions, meta.chunks);
      const values = await withStoreErrors('findRecipient', () =>
        Promise.all(
          everyPartition().map((p) =>
            redis.hget(`${campaignKeys(meta, p).chunkPrefix}${chunk}`, row),
          ),
        ),
      );
      const partition = values.findIndex((value) => value !== null);
      if (partition < 0) return null;
      return {
        chunk: { location: meta.location, name: meta.name, partition, chunk },
        entry: { row, record: decodeRecipient(values[partition]!) },
      };
    },
    campaignCounts: (ref) =>
      sumCounters((p) => keys.partition(p).campaign(campaignId(ref)).counters),
    async *scanRecipients(meta) {
      for (const p of everyPartition()) {
        for (let chunk = 0; chunk < meta.chunks; chunk++) {
          const entries = await readChunkOf({ ...meta, partition: p, chunk });
          if (entries.length > 0) yield entries;
        }
      }
    },
    async nextCampaignDue(partition) {
      const [, score] = await withStoreErrors('nextCampaignDue', () =>
        redis.zrange(keys.partition(partition).campaignDue, '0', '0', 'WITHSCORES'),
      );
      return score === undefined ? undefined : Number(score);
    },
    async claimDueChunks(partition, now, leaseMs, max) {
      const pk = keys.partition(partition);
      const reply = (await withStoreErrors('claimDueChunks', () =>
        scripts.run(
          'claim-due-chunks',
          [pk.campaignDue, pk.campaignChunksPrefix],
          [now, leaseMs, max],
        ),
      )) as string[];
      const chunks: CampaignChunk[] = [];
      for (let i = 0; i + 1 < reply.length; i += 2) {
        chunks.push({ ...parseCampaignId(reply[i]!), partition, chunk: Number(reply[i + 1]) });
      }
      return chunks;
    },
    readChunk: (chunk) => readChunkOf(chunk),
    async fireRecipients(chunk, decisions, now) {
      const c = campaignKeys(chunk, chunk.partition);
      const pk = keys.partition(chunk.partition);
      const args: (string | number)[] = [now, keys.readyChannel, pk.readyMessage('inbox')];
      for (const decision of decisions) {
        const argument =
          decision.action === 'start'
            ? decision.event
            : decision.action === 'hold'
              ? decision.until
              : decision.reason;
        const conversation =
          decision.action === 'start' ? `${decision.phone.location}:${decision.phone.phone}` : '';
        args.push(decision.row, decision.revision, decision.action, argument, conversation);
      }
      const reply = (await withStoreErrors('fireRecipients', () =>
        scripts.run(
          'fire-recipients',
          [
            `${c.chunkPrefix}${chunk.chunk}`,
            c.counters,
            c.state,
            pk.listPrefix('inbox'),
            pk.ready('inbox'),
            pk.suppressedPrefix,
          ],
          args,
        ),
      )) as string[];
      const [state, ...outcomes] = reply;
      if (state === 'paused' || state === 'cancelled') return { state };
      return { state: 'active', outcomes: outcomes as FiringOutcome[] };
    },
    async settleChunk(chunk, chunks) {
      const c = campaignKeys(chunk, chunk.partition);
      const due = await withStoreErrors('settleChunk', () =>
        scripts.run(
          'settle-chunk',
          [
            c.chunkPrefix,
            c.chunks,
            keys.partition(chunk.partition).campaignDue,
            c.state,
            c.counters,
          ],
          [campaignId(chunk), chunk.chunk, chunks, context.retention.conversationsMs],
        ),
      );
      return due === '' || due === null ? undefined : Number(due);
    },
    async adjustCounters(changes) {
      if (changes.length === 0) return;
      await withStoreErrors('adjustCounters', () =>
        scripts.run(
          'adjust-counters',
          [keys.partition(0).countersPrefix],
          [counterChangesJson(changes), context.retention.conversationsMs],
        ),
      );
    },
    async leaseTask(name, token, _now, ttlMs) {
      // Beside the counters of partition 0, with a TTL: the lease ends by itself.
      const key = `${keys.partition(0).countersPrefix}task:${name}`;
      const taken = await withStoreErrors('leaseTask', () =>
        redis.set(key, token, 'PX', Math.max(1, Math.round(ttlMs)), 'NX'),
      );
      return taken === 'OK';
    },
    readCounters: (name) => sumCounters((p) => `${keys.partition(p).countersPrefix}${name}`),
  };

  async function readChunkOf(chunk: CampaignChunk): Promise<RecipientEntry[]> {
    const key = `${campaignKeys(chunk, chunk.partition).chunkPrefix}${chunk.chunk}`;
    const hash = await withStoreErrors('readChunk', () => redis.hgetall(key));
    return Object.entries(hash).map(([row, value]) => ({ row, record: decodeRecipient(value) }));
  }
}

/** Every key matching `pattern` (SCAN; on a Cluster, every master's). */
async function scanKeys(redis: RedisStoreContext['redis'], pattern: string): Promise<string[]> {
  const nodes = await scanNodes(redis, 'scanKeys');
  const found = new Set<string>();
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 200);
      for (const key of keys) found.add(key);
      cursor = next;
    } while (cursor !== '0');
  }
  return [...found];
}
