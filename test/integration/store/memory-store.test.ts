import { createMemoryStore } from '../../../src/store/memory/create-memory-store.ts';
import { describeStoreContract } from './store-contract.ts';

describeStoreContract('memory', async () => ({
  store: createMemoryStore({ partitions: 16 }),
  cleanup: async () => {},
}));
