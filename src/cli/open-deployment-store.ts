import type { AppConfig } from '../app/config.ts';
import { openStore } from '../app/open-store.ts';
import { ConfigError } from '../errors.ts';
import type { Logger } from '../observability/logger.ts';
import type { Store } from '../store/store.ts';

/**
 * The store of the running deployment, for the commands that read or write it (`results`,
 * `conversations start`, `bots check`): one Redis at REDIS_URL or the Redis Cluster of
 * REDIS_CLUSTER_NODES, read as `replyflow start` reads them (`openStore`). `doing` says what the
 * command does with it, for the error when neither is set. `close()` ends the store and its
 * connection.
 *
 * @example
 * const { store, close } = openDeploymentStore(config, 'replyflow results reads the results', logger);
 */
export function openDeploymentStore(
  config: AppConfig,
  doing: string,
  logger: Logger,
): { store: Store; close(): Promise<void> } {
  if (!config.redisUrl && !config.redisClusterNodes) {
    // The in-memory store lives and dies with one process: the deployment's is elsewhere.
    throw new ConfigError(
      `${doing} in the deployment's store: set REDIS_URL (one Redis) or REDIS_CLUSTER_NODES (a Redis Cluster) as the server has them, and REPLYFLOW_REDIS_PREFIX if it uses one`,
    );
  }
  const { store, redis } = openStore(config, logger);
  return {
    store,
    async close() {
      await store.close();
      // A Redis that cannot answer the QUIT is let go of: the command is over.
      await redis?.quit().catch(() => redis.disconnect());
    },
  };
}
