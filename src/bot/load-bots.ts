import { readdir } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { errorCodes, ReplyflowError } from '../errors.ts';
import { type BotRegistry, type BotSource, createBotRegistry } from './bot-registry.ts';
import { isBot } from './define-bot.ts';

const botFile = /\.(m?ts|m?js)$/;
const skipped = /\.(d|test|spec)\.m?[jt]s$/;

/**
 * Imports every bot file of `dir` (`*.ts`, `*.js`; not tests or declarations) and indexes the
 * bots they export. Fails at start, naming the files, on a file that exports no bot, a file
 * that does not load, a duplicate bot id, or a keyword claimed by two bots.
 *
 * @example
 * const registry = await loadBots('./bots');
 * registry.byKeyword.get('rdv'); // the bot triggered by "RDV"
 */
export async function loadBots(dir: string): Promise<BotRegistry> {
  const root = resolve(dir);
  let names: string[];
  try {
    names = (await readdir(root)).filter((n) => botFile.test(n) && !skipped.test(n)).sort();
  } catch (cause) {
    throw new ReplyflowError(
      errorCodes.BOT_DEFINITION_INVALID,
      `cannot read the bots folder ${root}: create it or set REPLYFLOW_BOTS_DIR`,
      { cause },
    );
  }
  const problems: string[] = [];
  const sources: BotSource[] = [];
  for (const name of names) {
    const file = join(root, name);
    const shown = relative(process.cwd(), file) || file;
    let module: Record<string, unknown>;
    try {
      module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    } catch (cause) {
      problems.push(`${shown} does not load: ${(cause as Error).message}`);
      continue;
    }
    const bots = [...new Set(Object.values(module).filter(isBot))];
    if (bots.length === 0) {
      problems.push(`${shown} exports no bot: add \`export default defineBot({ ... })\``);
    }
    for (const bot of bots) sources.push({ bot, file: shown });
  }
  if (problems.length > 0) {
    throw new ReplyflowError(
      errorCodes.BOT_DEFINITION_INVALID,
      `cannot load the bots:\n  - ${problems.join('\n  - ')}`,
    );
  }
  return createBotRegistry(sources);
}
