import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/support/longest-first-sequencer.ts';

/**
 * Files whose acceptance bounds are latencies under a load they make themselves (answers within
 * 1 s or 5 s of a restart, a timer on time). Beside another file's load on the 2 cores here, the
 * whole machine can stall for seconds (graceful-stop once measured 6.7 s against its 5 s bound,
 * 49–80 ms alone), so they run after every other file, one at a time: their bounds measure the
 * product, not the neighbour.
 */
const latencyBound = [
  'test/integration/app/graceful-stop.test.ts',
  'test/integration/outbox/answers-first.test.ts',
  'test/integration/campaigns/replies-during-campaign.test.ts',
  'test/integration/reply-loop/timer-on-time.test.ts',
];

/** What both projects share; the global setup (the test Redis) is the root's, started once. */
const shared = {
  testTimeout: 30_000,
  hookTimeout: 30_000,
  // The longest files first, so that the two workers end together (see the sequencer).
  sequence: { sequencer: LongestFirstSequencer },
};

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-redis.ts'],
    projects: [
      {
        test: {
          ...shared,
          name: 'main',
          include: ['test/**/*.test.ts'],
          exclude: latencyBound,
          // Integration files start servers on random ports; two workers match the two cores here.
          maxWorkers: 2,
          // Each worker imports src and its dependencies once, not once per file: the whole run
          // took 660 s instead of 714 here (the unit files alone 16 s instead of 37). No file
          // keeps state in a module that another reads (fake timers are put back after each).
          isolate: false,
          sequence: { ...shared.sequence, groupOrder: 0 },
        },
      },
      {
        test: {
          ...shared,
          name: 'latency',
          include: latencyBound,
          maxWorkers: 1,
          sequence: { ...shared.sequence, groupOrder: 1 },
        },
      },
    ],
  },
});
