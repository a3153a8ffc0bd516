import { collectReplyTexts } from './collect-reply-texts.ts';
import type { Bot } from './define-bot.ts';
import { lintMessage, type MessageLint } from './lint-message.ts';

/** One `reply` of a bot, linted when its text is static. */
export interface BotTextLint {
  bot: string;
  /** The state and where in it (`appointment.asking entry`, `survey.score on sms.reply`). */
  where: string;
  /** The static text; null for a computed text, linted when it is sent. */
  text: string | null;
  /** Undefined for a computed text. */
  lint: MessageLint | undefined;
}

/**
 * Lints every static `reply('…')` text of the bots (see `lintMessage`) and lists the computed
 * ones, which are linted when they are sent. A text used twice in one place is listed once.
 *
 * @example
 * const rows = lintBotTexts(registry.bots.values());
 * rows.filter((row) => row.lint?.warnings.length); // the texts to fix
 */
export function lintBotTexts(bots: Iterable<Bot>): BotTextLint[] {
  const rows: BotTextLint[] = [];
  for (const bot of bots) {
    const seen = new Set<string>();
    for (const site of collectReplyTexts(bot.machine)) {
      const { text } = site;
      // A machine without an `id` is `(machine)` to XState: show the bot's id instead.
      const where = site.where.replace(/^\(machine\)/, bot.id);
      const key = `${where}\u0000${text}`;
      if (seen.has(key)) continue;
      seen.add(key);
      rows.push({
        bot: bot.id,
        where,
        text,
        lint: text === null ? undefined : lintMessage(text),
      });
    }
  }
  return rows;
}

/**
 * How many linted texts have at least one warning (what `--strict` fails on).
 *
 * @example
 * if (countLintWarnings(lintBotTexts(registry.bots.values())) > 0) process.exitCode = 1;
 */
export function countLintWarnings(rows: readonly BotTextLint[]): number {
  return rows.filter((row) => (row.lint?.warnings.length ?? 0) > 0).length;
}
