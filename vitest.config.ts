import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-redis.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration files start servers on random ports; two workers match the two cores here.
    maxWorkers: 2,
  },
});
