import { Cluster, type ClusterNode, type ClusterOptions } from 'ioredis';
import { reconnectDelayMs } from './connect-redis.ts';
import { redisOptionsForStore } from './redis-options-for-store.ts';

/**
 * ioredis `Cluster` options under which an unreachable cluster fails store calls in about a
 * second, as `redisOptionsForStore` does for one Redis: each node connection fails fast
 * (`redisOptions`: one retry per command, 1 s connect timeout, 2 s command timeout), a command
 * whose node went away is tried again on the refreshed slot map at most 10 times 100 ms apart
 * (`retryDelayOnFailover`, `maxRedirections`), and a cluster that went away is reconnected
 * 250 ms later, then twice as long after each failed attempt, at most 5 s
 * (`clusterRetryStrategy`, `reconnectDelayMs`). See `connectRedisCluster` for the offline queue.
 *
 * @example
 * const cluster = new Cluster(nodes, clusterOptionsForStore());
 * const store = createRedisStore({ redis: cluster });
 */
export function clusterOptionsForStore(overrides: ClusterOptions = {}): ClusterOptions {
  const { retryStrategy: _retry, ...nodeOptions } = redisOptionsForStore();
  return {
    redisOptions: nodeOptions,
    clusterRetryStrategy: reconnectDelayMs,
    retryDelayOnFailover: 100,
    retryDelayOnClusterDown: 100,
    retryDelayOnTryAgain: 100,
    maxRedirections: 10,
    slotsRefreshTimeout: 1_000,
    ...overrides,
  };
}

/**
 * A `Cluster` connection for the store, from `host:port` strings (REDIS_CLUSTER_NODES).
 *
 * ioredis's Cluster keeps every command issued while it is not connected in an offline queue
 * that nothing bounds: with every master down, store calls would wait for as long as the
 * outage lasts, and the webhook would never answer 503. So the queue is on only until the
 * cluster is first ready (calls made while it starts wait for it, as on one Redis), and off
 * whenever the cluster is down after that: calls then fail at once with StoreUnavailableError.
 * (Calls queued during a first connection that fails wait until the cluster answers.)
 *
 * @example
 * const cluster = connectRedisCluster(['10.0.0.1:6379', '10.0.0.2:6379']);
 * const store = createRedisStore({ redis: cluster });
 * // on shutdown:
 * await store.close();
 * await cluster.quit();
 */
export function connectRedisCluster(nodes: readonly string[], overrides: ClusterOptions = {}) {
  const cluster = new Cluster(nodes.map(parseClusterNode), clusterOptionsForStore(overrides));
  if (cluster.options.enableOfflineQueue === false) return cluster;
  const setQueue = (on: boolean) => {
    cluster.options.enableOfflineQueue = on;
  };
  cluster.on('ready', () => setQueue(true));
  cluster.on('reconnecting', () => setQueue(false));
  cluster.on('close', () => setQueue(false));
  return cluster;
}

/** `host:port` (or `[v6]:port`, or `host` alone for port 6379) as ioredis takes it. */
export function parseClusterNode(node: string): ClusterNode {
  const match = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d+))?$/.exec(node.trim());
  if (!match) throw new TypeError(`'${node}' is not host:port`);
  return { host: match[1] ?? match[2] ?? '', port: match[3] ? Number(match[3]) : 6379 };
}
