import type { Command } from 'commander';
import type { LintOptions } from './bots-lint-actions.ts';

/**
 * `replyflow bots lint [--bots DIR] [--strict] [--no-run]`: the table of every `reply` text of
 * the bots, with its encoding, parts and warnings; then the texts the bots sent while their
 * transcripts (or, for a bot with none, its `exampleInput`) ran, which covers the computed ones.
 * Exits 1 with `--strict` when a text has a warning.
 */
export function registerBotsLintCommand(program: Command): void {
  // `bots` may already hold other sub-commands (`bots check`): add to it rather than shadow it.
  const bots =
    program.commands.find((command) => command.name() === 'bots') ??
    program.command('bots').description('Check the bots of a folder before they serve');
  bots
    .command('lint')
    .description(
      'Lint every reply text, static and as sent by the transcripts: GSM-7 or UCS-2, parts, the characters that force UCS-2 and what to write instead',
    )
    .option('--bots <dir>', 'the bots folder (default REPLYFLOW_BOTS_DIR or ./bots)')
    .option('--strict', 'exit 1 when any text has a warning')
    .option('--no-run', 'lint the static texts only: run no transcript and no example start')
    .action(async (options: LintOptions) =>
      (await import('./bots-lint-actions.ts')).lintBots(options),
    );
}
