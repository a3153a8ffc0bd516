import { loadConfig } from '../app/config.ts';
import { formatLintTable } from '../bot/format-lint-table.ts';
import { countLintWarnings, lintBotTexts } from '../bot/lint-bot-texts.ts';
import { loadBots } from '../bot/load-bots.ts';
import { ReplyflowError } from '../errors.ts';
import { lintSentTexts } from './lint-sent-texts.ts';

export interface LintOptions {
  bots?: string;
  strict?: boolean;
  /** False with --no-run: the static texts only. */
  run?: boolean;
}

/** `replyflow bots lint`, loaded when it runs (bots-lint-command.ts defines its options). */
export async function lintBots(options: LintOptions): Promise<void> {
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
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
