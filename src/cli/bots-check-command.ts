import type { Command } from 'commander';

/**
 * `replyflow bots check [--bots DIR]`: before a deploy, what the live conversations in the
 * store (REDIS_URL or REDIS_CLUSTER_NODES) would do with the bots of DIR. Exits 1 when some
 * would end with no `migrate` to keep them.
 */
export function registerBotsCheckCommand(program: Command): void {
  // `bots` groups several sub-commands, each registered from its own file.
  const bots =
    program.commands.find((command) => command.name() === 'bots') ??
    program.command('bots').description('Look at the bots before serving them');
  bots
    .command('check')
    .description(
      'Count live conversations in the store (REDIS_URL or REDIS_CLUSTER_NODES) per bot, version and state, and list those the new bot definitions would end; exit 1 if any would end with no migrate',
    )
    .option('--bots <dir>', 'folder of the new bot files (default REPLYFLOW_BOTS_DIR or ./bots)')
    .option('--json', 'print the report as JSON')
    .action(async (options: { bots?: string; json?: boolean }) =>
      (await import('./bots-check-actions.ts')).runBotsCheck(options),
    );
}
