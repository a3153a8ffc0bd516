import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds each long file took in a full run on the 2-core CI machine (`npx vitest run
 * --reporter=json`, each file's end minus its start), for the files over about 10 s.
 * Approximate on purpose: only the order they give matters.
 */
export const longFiles: Record<string, number> = {
  'test/integration/docs/doc-examples.test.ts': 150,
  'test/integration/reply-loop/scale-out.test.ts': 130,
  'test/integration/compliance/suppression-import.test.ts': 130,
  'test/integration/cli/serve-commands.test.ts': 120,
  'test/integration/campaigns/campaign-from-csv.test.ts': 120,
  // Alone 103-110 s (limits 40/38 per second); waits on its limiter, so about that in a full run.
  'test/integration/reply-loop/send-faults.test.ts': 110,
  'test/integration/cli/campaigns-command.test.ts': 97,
  'test/integration/campaigns/campaign-reimport.test.ts': 81,
  'test/integration/cli/chat-command.test.ts': 73,
  // Alone 43-51 s since its two stores' runs share the time; 117 s in a full run before.
  'test/integration/reply-loop/crash.test.ts': 65,
  'test/integration/webhook/webhook-fast-path.test.ts': 53,
  'test/integration/outbox/frozen-service.test.ts': 48,
  'test/integration/app/admin-scheduled-starts.test.ts': 42,
  'test/integration/cli/bots-check-command.test.ts': 41,
  'test/integration/cli/store-commands-on-cluster.test.ts': 39,
  'test/integration/app/graceful-stop.test.ts': 39,
  'test/integration/compliance/opt-out.test.ts': 37,
  'test/integration/bench/footprint-bench.test.ts': 37,
  'test/integration/results/results-command.test.ts': 35,
  'test/integration/transcripts/reference-bots.test.ts': 33,
  'test/integration/cli/bots-lint-command.test.ts': 33,
  'test/integration/store/redis-store.test.ts': 32,
  'test/integration/cli/test-command.test.ts': 32,
  'test/integration/outbox/answers-first.test.ts': 31,
  'test/integration/outbox/stop-race.test.ts': 31,
  'test/unit/emulator/count-parts.test.ts': 30,
  'test/integration/events/event-delivery-crash.test.ts': 30,
  'test/integration/app/dev-clock-and-logs.test.ts': 29,
  'test/integration/campaigns/campaign-crash.test.ts': 29,
  'test/integration/app/start-command.test.ts': 27,
  'test/integration/reply-loop/web-command.test.ts': 22,
  'test/integration/app/admin-conversations.test.ts': 22,
  'test/integration/cli/provider-commands.test.ts': 22,
  'test/integration/webhook/fuzz.test.ts': 20,
  'test/integration/campaigns/campaign-many-runners.test.ts': 19,
  'test/e2e/dev-phone.test.ts': 19,
  'test/integration/cli/unreachable-redis.test.ts': 16,
  'test/integration/campaigns/replies-during-campaign.test.ts': 15,
  'test/integration/app/http-hardening.test.ts': 15,
  'test/integration/cli/event-deliveries-command.test.ts': 15,
  'test/integration/store/redis-cluster-store.test.ts': 13,
  'test/integration/reply-loop/rate-limited-service.test.ts': 13,
  'test/integration/outbox/in-doubt-live-holder.test.ts': 12,
  'test/integration/cli/stats-command.test.ts': 12,
  'test/integration/events/suppressions-long-upload.test.ts': 12,
};

/**
 * Runs the longest files first. Vitest's own order needs the durations of a previous run in
 * its cache (node_modules/.vite, which a fresh clone has not): without them it runs larger
 * files first, and a short file such as doc-examples.test.ts (51 lines, 150 s) started last of
 * 238 in CI, running alone while the other worker had finished. With the longest first, what
 * runs last is short, and the two workers end together.
 */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const seconds = (file: TestSpecification) =>
      longFiles[relative(root, file.moduleId).split('\\').join('/')] ?? 0;
    // Array.prototype.sort is stable: the files not listed keep vitest's order.
    return sorted.sort((a, b) => seconds(b) - seconds(a));
  }
}
