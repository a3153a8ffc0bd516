import { randomUUID } from 'node:crypto';
import { partitionOf } from '../partition-of.ts';
import { reportAsWarning } from '../ready-listeners.ts';
import type { Store } from '../store.ts';
import { type StoreRetention, storeRetention } from '../store-limits.ts';
import { storeKeys } from './keys.ts';
import { createReadySubscription } from './ready-subscription.ts';
import { redisCampaignOperations } from './redis-campaign-operations.ts';
import { redisEventOperations } from './redis-event-operations.ts';
import { redisInboxOperations } from './redis-inbox-operations.ts';
import { redisInspectionOperations } from './redis-inspection-operations.ts';
import { redisMonitoringOperations } from './redis-monitoring-operations.ts';
import { redisOutboxOperations } from './redis-outbox-operations.ts';
import { redisResultOperations } from './redis-result-operations.ts';
import { redisScanOperations } from './redis-scan-operations.ts';
import type { RedisConnection, RedisStoreContext } from './redis-store-context.ts';
import { redisSuppressionOperations } from './redis-suppression-operations.ts';
import { redisTimerOperations } from './redis-timer-operations.ts';
import { redisTranscriptOperations } from './redis-transcript-operations.ts';
import { defineStoreScripts } from './store-scripts.ts';
import { createValueCache } from './value-cache.ts';

export { clusterOptionsForStore, connectRedisCluster } from './connect-redis-cluster.ts';
export { redisOptionsForStore } from './redis-options-for-store.ts';

export interface RedisStoreOptions {
  /**
   * The connection to use, made and closed by the caller: one Redis (see `redisOptionsForStore`)
   * or a Redis Cluster (see `connectRedisCluster`).
   */
  redis: RedisConnection;
  /** A connection for `onReady`'s subscription; by default `redis.duplicate()`, made on first use and closed with the store. */
  subscriber?: RedisConnection;
  /** Prepended to every key; one Redis can hold several stores under different prefixes. */
  prefix?: string;
  /** Partitions of the shared structures; fixed for the life of the data. */
  partitions?: number;
  /** Makes lock tokens. */
  newToken?: () => string;
  /** Receives what has no caller to reject with: subscription failures, listener errors. */
  onError?: (error: unknown) => void;
  /** How long ended conversations, message records and results are kept (30 days by default). */
  retention?: Partial<StoreRetention>;
}

/**
 * The production store: the port over one Redis or a Redis Cluster, every multi-key change in
 * one Lua script touching one hash slot (see `keys.ts` for the layout and `scripts/` for the
 * scripts).
 * Failures of the connection or of the server reject with `StoreUnavailableError`. Like
 * grammY's storage adapters it is given its connection: `close()` leaves `redis` open.
 *
 * @example
 * const redis = new Redis(process.env.REDIS_URL, redisOptionsForStore());
 * const store = createRedisStore({ redis });
 * // … on shutdown:
 * await store.close();
 * await redis.quit();
 */
export function createRedisStore(options: RedisStoreOptions): Store {
  const { redis } = options;
  const partitions = options.partitions ?? 16;
  const context: RedisStoreContext = {
    redis,
    keys: storeKeys(options.prefix ?? 'rf:', partitions),
    scripts: defineStoreScripts(redis),
    partitionOf: (phone) => partitionOf(phone, partitions),
    newToken: options.newToken ?? randomUUID,
    retention: storeRetention(options.retention),
    values: createValueCache(),
  };
  const ready = createReadySubscription({
    redis,
    subscriber: options.subscriber,
    channel: context.keys.readyChannel,
    partitions,
    onError: options.onError ?? reportAsWarning,
  });

  return {
    partitions,
    partitionOf: context.partitionOf,
    ...redisInboxOperations(context),
    ...redisOutboxOperations(context),
    ...redisInspectionOperations(context),
    ...redisScanOperations(context),
    ...redisSuppressionOperations(context),
    ...redisTimerOperations(context),
    ...redisMonitoringOperations(context),
    ...redisResultOperations(context, partitions),
    ...redisTranscriptOperations(context),
    ...redisEventOperations(context),
    onReady: (listener) => ready.add(listener),
    onTimerArmed: (listener) => ready.addTimerListener(listener),
    onEventsQueued: (listener) => ready.addEventsListener(listener),
    ...redisCampaignOperations(context),
    onCampaignDue: (listener) => ready.addCampaignListener(listener),
    close: () => ready.close(),
  };
}
