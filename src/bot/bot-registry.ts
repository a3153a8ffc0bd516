import { errorCodes, ReplyflowError } from '../errors.ts';
import type { Bot } from './define-bot.ts';

/** The bots a process serves, indexed for routing. */
export interface BotRegistry {
  bots: ReadonlyMap<string, Bot>;
  byKeyword: ReadonlyMap<string, Bot>;
  fallback: Bot | undefined;
}

/** Where a bot came from, so errors can name the file. */
export interface BotSource {
  bot: Bot;
  file: string;
}

/**
 * Indexes bots and refuses ambiguity: two bots with one id, one keyword claimed by two bots,
 * or two fallback bots. Every problem is reported at once, naming the files involved.
 */
export function createBotRegistry(sources: readonly BotSource[]): BotRegistry {
  const problems: string[] = [];
  const bots = new Map<string, BotSource>();
  const byKeyword = new Map<string, BotSource>();
  let fallback: BotSource | undefined;
  for (const source of sources) {
    const { bot, file } = source;
    const twin = bots.get(bot.id);
    if (twin) problems.push(`bot id '${bot.id}' is defined twice: in ${twin.file} and in ${file}`);
    else bots.set(bot.id, source);
    for (const keyword of bot.keywords) {
      const owner = byKeyword.get(keyword);
      if (owner && owner.bot.id !== bot.id) {
        problems.push(
          `keyword '${keyword}' is claimed by two bots: '${owner.bot.id}' (${owner.file}) and '${bot.id}' (${file})`,
        );
      } else byKeyword.set(keyword, source);
    }
    if (bot.fallback) {
      if (fallback) {
        problems.push(
          `two fallback bots: '${fallback.bot.id}' (${fallback.file}) and '${bot.id}' (${file}); keep one`,
        );
      } else fallback = source;
    }
  }
  if (problems.length > 0) {
    throw new ReplyflowError(
      errorCodes.BOT_DEFINITION_INVALID,
      `cannot load the bots:\n  - ${problems.join('\n  - ')}`,
    );
  }
  return {
    bots: new Map([...bots].map(([id, s]) => [id, s.bot])),
    byKeyword: new Map([...byKeyword].map(([k, s]) => [k, s.bot])),
    fallback: fallback?.bot,
  };
}
