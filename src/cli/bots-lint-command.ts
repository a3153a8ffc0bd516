import type { Command } from 'commander';
import { loadConfig } from '../app/config.ts';
import { formatLintTable } from '../bot/format-lint-table.ts';
import { countLintWarnings, lintBotTexts } from '../bot/lint-bot-texts.ts';
import { loadBots } from '../bot/load-bots.ts';
import { ReplyflowError } from '../errors.ts';
import { lintSentTexts } from './lint-sent-texts.ts';

interface LintOptions {
  bots?: string;
  strict?: boolean;
  /** False with --no-run: the static texts only. */
  run?: boolean;
}

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
    .action(async (options: LintOptions) => {
      try {
        const dir = options.bots ?? (await loadConfig(process.env)).botsDir;
        const registry = await loadBots(dir);
        const rows = lintBotTexts(registry.bots.values());
        process.stdout.write(`${formatLintTable(rows)}\n\n`);
        const sent = options.run === false ? undefined : await lintSentTexts(registry, dir, rows);
        if (sent && sent.rows.length > 0) {
          process.stdout.write(
            `Sent while running ${count(sent.transcripts, 'transcript')} and ${count(sent.examples, 'example input')}:\n${formatLintTable(sent.rows)}\n\n`,
          );
        }
        const warned = countLintWarnings(rows) + countLintWarnings(sent?.rows ?? []);
        const computed = rows.filter((row) => row.text === null).length;
        const more = sent?.rows.length
          ? `; ${count(sent.rows.length, 'more text')} as sent, linted`
          : '';
        process.stdout.write(
          `${count(rows.length - computed, 'static text')}, ${computed} computed (linted when sent)${more}, ${warned} with warnings\n`,
        );
        if (options.strict && warned > 0) process.exitCode = 1;
      } catch (error) {
        if (!(error instanceof ReplyflowError)) throw error;
        process.stderr.write(`error ${error.code}: ${error.message}\n`);
        process.exitCode = 1;
      }
    });
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
