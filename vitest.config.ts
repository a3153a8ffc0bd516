import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/support/longest-first-sequencer.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-redis.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration files start servers on random ports; two workers match the two cores here.
    maxWorkers: 2,
    // The longest files first, so that the two workers end together (see the sequencer).
    sequence: { sequencer: LongestFirstSequencer },
  },
});
