import { afterAll } from 'vitest';
import { createRedisStore } from '../../../src/store/redis/create-redis-store.ts';
import { connectTestRedis, randomPrefix } from '../../support/redis.ts';
import { describeStoreContract } from './store-contract.ts';

const redis = connectTestRedis();
afterAll(() => redis.quit());

describeStoreContract('redis', async () => {
  // A prefix per test, so every test starts from an empty store.
  const prefix = randomPrefix('store');
  const store = createRedisStore({ redis, prefix, partitions: 16 });
  return {
    store,
    async cleanup() {
      await store.close();
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.unlink(...keys);
    },
  };
});
