import type { Command } from 'commander';
import type { Where } from './suppressions-actions.ts';

/**
 * `replyflow suppressions import FILE.csv | export | list | remove PHONE`: a location's opt-outs
 * in and out of the deployment's store (REDIS_URL or REDIS_CLUSTER_NODES), as
 * `/admin/suppressions` does. Numbers are masked in every message, and in `list` unless `--full`.
 */
export function registerSuppressionsCommand(program: Command): void {
  const suppressions = program
    .command('suppressions')
    .description(
      "A location's opt-outs: import, export, list, remove (needs REDIS_URL or REDIS_CLUSTER_NODES)",
    );
  suppressions
    .command('import <file>')
    .description(
      'Add the opt-outs of a CSV (a phone column; optional reason and at, ISO 8601) to the list: the numbers are sent nothing from then on',
    )
    .option('--location <name>', 'the configured location (default: the only one)')
    .option('--reason <text>', 'the reason of the rows that have none (default: none)')
    .action(async (file: string, options: Where & { reason?: string }) =>
      (await import('./suppressions-actions.ts')).importSuppressionsFile(file, options),
    );
  suppressions
    .command('export')
    .description('Print the list as CSV: phone,at,reason,source')
    .option('--location <name>', 'the configured location (default: the only one)')
    .action(async (options: Where) =>
      (await import('./suppressions-actions.ts')).exportSuppressions(options),
    );
  suppressions
    .command('list')
    .description('Show the list as a table, numbers masked')
    .option('--location <name>', 'the configured location (default: the only one)')
    .option('--limit <n>', 'at most this many entries', '50')
    .option('--full', 'show the numbers whole')
    .action(async (options: Where & { limit: string; full?: boolean }) =>
      (await import('./suppressions-actions.ts')).listSuppressions(options),
    );
  suppressions
    .command('remove <phone>')
    .description('Take a phone off the list: it may be sent messages again')
    .option('--location <name>', 'the configured location (default: the only one)')
    .action(async (phone: string, options: Where) =>
      (await import('./suppressions-actions.ts')).removeSuppression(phone, options),
    );
}
