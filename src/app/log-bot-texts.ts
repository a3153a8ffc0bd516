import type { BotRegistry } from '../bot/bot-registry.ts';
import { formatLintTable } from '../bot/format-lint-table.ts';
import { countLintWarnings, lintBotTexts } from '../bot/lint-bot-texts.ts';
import type { Logger } from '../observability/logger.ts';

/**
 * Logs, when the bots load, the table of their static reply texts (encoding, parts) at info,
 * and one warn line per text that costs more than it could, so a UCS-2 apostrophe is seen
 * before the first campaign rather than on the bill.
 *
 * @example
 * const registry = await loadBots(config.botsDir);
 * logBotTexts(registry, logger);
 */
export function logBotTexts(registry: BotRegistry, logger: Logger): void {
  const rows = lintBotTexts(registry.bots.values());
  const warned = countLintWarnings(rows);
  logger.info(
    { texts: rows.length, withWarnings: warned },
    `bot reply texts (replyflow bots lint):\n${formatLintTable(rows)}`,
  );
  for (const row of rows) {
    if (!row.lint || row.lint.warnings.length === 0) continue;
    logger.warn(
      {
        bot: row.bot,
        where: row.where,
        encoding: row.lint.encoding,
        parts: row.lint.segments,
        warnings: row.lint.warnings,
      },
      'a reply text costs more than it could',
    );
  }
}
