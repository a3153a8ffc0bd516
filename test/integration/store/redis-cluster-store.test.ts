import { afterAll } from 'vitest';
import {
  connectRedisCluster,
  createRedisStore,
} from '../../../src/store/redis/create-redis-store.ts';
import { unlinkEverywhere } from '../../support/cluster-keys.ts';
import { randomPrefix, testClusterNodes } from '../../support/redis.ts';
import { describeStoreContract } from './store-contract.ts';

const nodes = testClusterNodes();
const cluster = connectRedisCluster(nodes);
afterAll(() => cluster.quit());

describeStoreContract('redis cluster', async () => {
  // A prefix per test, so every test starts from an empty store.
  const prefix = randomPrefix('store');
  const store = createRedisStore({ redis: cluster, prefix, partitions: 16 });
  return {
    store,
    async cleanup() {
      await store.close();
      await unlinkEverywhere(nodes, prefix);
    },
  };
});
