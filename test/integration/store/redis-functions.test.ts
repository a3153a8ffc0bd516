import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectRedisCluster,
  createRedisStore,
} from '../../../src/store/redis/create-redis-store.ts';
import type { Store } from '../../../src/store/store.ts';
import { StoreUnavailableError } from '../../../src/store/store-errors.ts';
import { unlinkEverywhere } from '../../support/cluster-keys.ts';
import { randomPrefix, testClusterNodes } from '../../support/redis.ts';
import { recordScriptCommands } from '../../support/script-commands.ts';
import {
  hasRedisServer,
  type ThrowawayRedis,
  throwawayRedis,
} from '../../support/throwaway-redis.ts';
import { keyOf, replyEvent, t0 } from './contract/fixtures.ts';

/** The store's libraries a server holds (`replyflow_<script>_<hash>`). */
async function storeLibraries(redis: Redis): Promise<string[]> {
  const list = (await redis.call('FUNCTION', 'LIST', 'LIBRARYNAME', 'replyflow_*')) as unknown[][];
  return list.map((library) => String(library[1])).sort();
}

let n = 0;
/** One reply ingested: the store's hottest script, as a webhook runs it. */
async function ingestOne(store: Store): Promise<number> {
  n++;
  const result = await store.ingest(`n-${n}`, [{ event: replyEvent(`e-${n}`, '33612340001') }], t0);
  return result.pushed;
}

describe.skipIf(!hasRedisServer)('the store scripts as Redis functions', () => {
  let server: ThrowawayRedis;
  let admin: Redis;
  beforeAll(async () => {
    // A Redis of its own: its functions are flushed, which would slow every other test.
    server = await throwawayRedis();
    admin = new Redis(server.url);
    admin.on('error', () => undefined);
  });
  afterAll(async () => {
    admin?.disconnect();
    await server?.stop();
  });

  it('loads them on a server that has none, and again once it has lost them, and calls them by FCALL', async () => {
    const redis = new Redis(server.url);
    // The restart below: ioredis reports the refused reconnections, then connects again.
    redis.on('error', () => undefined);
    const sent = recordScriptCommands(redis);
    const store = createRedisStore({ redis, prefix: randomPrefix('functions'), partitions: 4 });
    try {
      expect(await storeLibraries(admin)).toEqual([]);
      expect(await ingestOne(store)).toBe(1);
      const loaded = await storeLibraries(admin);
      expect(loaded.some((name) => /^replyflow_ingest_[0-9a-f]{10}$/.test(name))).toBe(true);
      expect(loaded.some((name) => name.startsWith('replyflow_commit_step_'))).toBe(true);
      // The call that found none, then the same call again once they were loaded.
      expect(sent).toEqual(['fcall', 'fcall']);

      // What a restart without persistence leaves: no functions, the connection still open.
      await admin.call('FUNCTION', 'FLUSH');
      expect(await ingestOne(store)).toBe(1);
      expect(await storeLibraries(admin)).toEqual(loaded);

      // And a real restart, the connection lost and made again.
      await server.stop();
      await server.start();
      expect(await ingestOne(store)).toBe(1);
      expect(await storeLibraries(admin)).toEqual(loaded);
      expect(sent.every((name) => name === 'fcall')).toBe(true);

      // Loaded, a call is one FCALL.
      sent.length = 0;
      expect(await ingestOne(store)).toBe(1);
      expect(sent).toEqual(['fcall']);
    } finally {
      await store.close();
      redis.disconnect();
    }
  });

  it('leaves a library another process of the same release loaded as it is', async () => {
    const first = new Redis(server.url);
    const second = new Redis(server.url);
    const prefix = randomPrefix('functions');
    const stores = [first, second].map((redis) => createRedisStore({ redis, prefix }));
    try {
      await admin.call('FUNCTION', 'FLUSH');
      // Both find none at once: each loads, and the second load meets the first's libraries.
      expect(await Promise.all(stores.map(ingestOne))).toEqual([1, 1]);
      expect(await ingestOne(stores[1]!)).toBe(1);
    } finally {
      for (const store of stores) await store.close();
      first.disconnect();
      second.disconnect();
    }
  });

  it('reads while Redis is out of memory, and refuses a write whole', async () => {
    const redis = new Redis(server.url);
    const prefix = randomPrefix('functions');
    const store = createRedisStore({ redis, prefix, partitions: 4 });
    try {
      expect(await ingestOne(store)).toBe(1);
      const keys = await admin.keys(`${prefix}*`);
      const before = await Promise.all(keys.map((key) => admin.dump(key)));
      // Out of memory: no eviction, and less room than Redis already uses.
      const used = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))![1]);
      await admin.config('SET', 'maxmemory-policy', 'noeviction');
      await admin.config('SET', 'maxmemory', String(Math.floor(used / 2)));
      try {
        // A read-only script (no-writes) still runs: a conversation that has no value yet.
        expect(await store.readTranscript(keyOf('33612340002'))).toBeNull();
        // Refused as a passing outage (the webhook answers 503, the service retries).
        const refused = await ingestOne(store).catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(StoreUnavailableError);
        expect((refused as Error).message).toMatch(/OOM/);
      } finally {
        await admin.config('SET', 'maxmemory', '0');
      }
      // Refused before it ran: the keys as they were, none added.
      expect((await admin.keys(`${prefix}*`)).sort()).toEqual([...keys].sort());
      expect(await Promise.all(keys.map((key) => admin.dump(key)))).toEqual(before);
    } finally {
      await store.close();
      redis.disconnect();
    }
  });

  it('runs the same scripts by EVALSHA for a user whose ACL forbids functions', async () => {
    await admin.call('ACL', 'SETUSER', 'nofunctions', 'on', '>pw', '~*', '&*', '+@all', '-fcall');
    await admin.call('ACL', 'SETUSER', 'nofunctions', '-function');
    const url = new URL(server.url);
    url.username = 'nofunctions';
    url.password = 'pw';
    const redis = new Redis(url.href);
    const sent = recordScriptCommands(redis);
    const store = createRedisStore({ redis, prefix: randomPrefix('functions') });
    try {
      expect(await ingestOne(store)).toBe(1);
      expect(await ingestOne(store)).toBe(1);
      // One FCALL refused, nothing more asked of functions: every call since by EVALSHA.
      expect(sent[0]).toBe('fcall');
      expect(sent.slice(1)).toEqual(['evalsha', 'evalsha']);
    } finally {
      await store.close();
      redis.disconnect();
    }
  });
});

describe('the store scripts as Redis functions on a Cluster', () => {
  const nodes = testClusterNodes();
  const cluster = connectRedisCluster(nodes);
  afterAll(() => cluster.quit());

  it('are loaded on every master', async () => {
    const prefix = randomPrefix('functions');
    const store = createRedisStore({ redis: cluster, prefix, partitions: 16 });
    try {
      expect(await ingestOne(store)).toBe(1);
      for (const master of cluster.nodes('master')) {
        const libraries = await storeLibraries(master);
        expect(libraries.some((name) => name.startsWith('replyflow_ingest_'))).toBe(true);
      }
    } finally {
      await store.close();
      await unlinkEverywhere(nodes, prefix);
    }
  });
});
