import type { Cluster, Redis } from 'ioredis';
import type { StoreRetention } from '../store-limits.ts';
import type { StoreKeys } from './keys.ts';
import type { StoreScripts } from './store-scripts.ts';
import { toStoreError } from './to-store-error.ts';
import type { ValueCache } from './value-cache.ts';

/** What the store runs on: one Redis, or a Redis Cluster (every script call touches one slot). */
export type RedisConnection = Redis | Cluster;

/** True for a Cluster connection (ioredis's own test: its pipelines use it too). */
export const isCluster = (redis: RedisConnection): redis is Cluster => redis.isCluster;

/**
 * What a SCAN must go over: every master of a Cluster, or the one Redis. A Cluster client learns
 * its masters as it connects, so a fresh one (a CLI command's first call is often a SCAN) knows
 * none yet, and a SCAN over them would find nothing: its first call connects it first.
 */
export async function scanNodes(redis: RedisConnection, operation: string): Promise<Redis[]> {
  if (!isCluster(redis)) return [redis];
  if (redis.nodes('master').length === 0) await withStoreErrors(operation, () => redis.ping());
  return redis.nodes('master');
}

/** What the Redis driver's operation modules share. */
export interface RedisStoreContext {
  redis: RedisConnection;
  keys: StoreKeys;
  scripts: StoreScripts;
  partitionOf(phone: string): number;
  newToken(): string;
  retention: StoreRetention;
  /** The conversation values this process read or wrote last (value-cache.ts). */
  values: ValueCache;
}

/** Runs one Redis call, rejecting with `StoreUnavailableError` when Redis fails it. */
export async function withStoreErrors<T>(operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw toStoreError(error, operation);
  }
}

/** Seconds for `EX`, rounded up so a TTL is never shorter than asked. */
export const seconds = (ms: number) => Math.ceil(ms / 1_000);

/** The TTL (s) of a message record (a dropped message's too), as the scripts take it. */
export const messageTtl = (context: Pick<RedisStoreContext, 'retention'>) =>
  seconds(context.retention.conversationsMs);

/**
 * Tells every process sharing the store that `partition` has outbound events queued
 * ("events:<partition>" on the ready channel, `onEventsQueued`), after the call that queued
 * them. A hint: dispatchers also poll, so a publish Redis fails is left to their poll.
 */
export function announceEvents(
  context: Pick<RedisStoreContext, 'redis' | 'keys'>,
  partition: number,
) {
  context.redis.publish(context.keys.readyChannel, `events:${partition}`).catch(() => {});
}
