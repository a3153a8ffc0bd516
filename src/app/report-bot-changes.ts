import type { BotRegistry } from '../bot/bot-registry.ts';
import { versionChanged } from '../conversation/resume-snapshot.ts';
import type { Logger } from '../observability/logger.ts';

/**
 * Logs what a reload means for live conversations. The engine resumes each conversation with
 * the bot as it is at its next event (`resumeSnapshot`): the same version goes on, another
 * version goes through the bot's `migrate`, or the conversation ends with a logged code.
 */
export function reportBotChanges(before: BotRegistry, after: BotRegistry, logger: Logger): void {
  for (const [id, bot] of after.bots) {
    const old = before.bots.get(id);
    const log = logger.child({ bot: id });
    if (!old) log.info({ version: bot.version }, `bot '${id}' added`);
    else if (old.version === bot.version) {
      if (old !== bot)
        log.info(
          { version: bot.version },
          `bot '${id}' reloaded, same version: its conversations go on`,
        );
    } else if (bot.migrate) {
      log.info(
        { from: old.version, to: bot.version },
        `bot '${id}' changed: its live conversations go through migrate() at their next event`,
      );
    } else {
      log.warn(
        { from: old.version, to: bot.version, code: versionChanged },
        `bot '${id}' changed: its live conversations end at their next event (add migrate() to keep them)`,
      );
    }
  }
  for (const id of before.bots.keys()) {
    if (!after.bots.has(id)) {
      logger.warn(
        { bot: id, code: 'BOT_REMOVED' },
        `bot '${id}' removed: its live conversations end at their next event`,
      );
    }
  }
}
