import type { Command } from 'commander';
import type { ResultsOptions } from './results-actions.ts';

/** `replyflow results <bot>`: a bot's conversation results from the deployment's store (REDIS_URL or REDIS_CLUSTER_NODES). */
export function registerResultsCommand(program: Command): void {
  program
    .command('results')
    .description(
      "Print a bot's conversation results (what its flows recorded), from the deployment's store (REDIS_URL or REDIS_CLUSTER_NODES)",
    )
    .argument('<bot>', 'the bot id')
    .option('--format <format>', 'csv or json', 'csv')
    .option('--since <iso>', 'only conversations started at or after this time (ISO 8601)')
    .option('--location <name>', 'only this location')
    .option(
      '--campaign <name>',
      "only the conversations this campaign started (the columns campaign and row name each one's recipient)",
    )
    .action(async (bot: string, options: ResultsOptions) =>
      (await import('./results-actions.ts')).runResults(bot, options),
    );
}
