import type { Command } from 'commander';

/**
 * `replyflow stats show | reconcile`: the bots' activity counters in the deployment's store
 * (REDIS_URL or REDIS_CLUSTER_NODES), as the dashboard's first screen reads them, and their
 * recount from the conversation records (the scheduler role also does it hourly).
 */
export function registerStatsCommand(program: Command): void {
  const stats = program
    .command('stats')
    .description(
      "The bots' activity counters: show them, or recount them from the records (needs REDIS_URL or REDIS_CLUSTER_NODES)",
    );
  stats
    .command('show')
    .description(
      'Per location and bot: active now, started and how runs ended today and over 7 days, messages sent',
    )
    .option('--location <name>', 'only this location')
    .action(async (options: { location?: string }) =>
      (await import('./stats-actions.ts')).showStats(options),
    );
  stats
    .command('reconcile')
    .description(
      'Recount the conversations active in each state from their records and correct the counters that drifted',
    )
    .action(async () => (await import('./stats-actions.ts')).reconcileStats());
}
