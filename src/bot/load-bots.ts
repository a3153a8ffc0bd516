import { readdir } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { errorCodes, ReplyflowError } from '../errors.ts';
import { type BotRegistry, type BotSource, createBotRegistry } from './bot-registry.ts';
import { type Bot, isBot } from './define-bot.ts';

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
  const problems: string[] = [];
  const sources: BotSource[] = [];
  for (const file of await listBotFiles(dir)) {
    const loaded = await importBotFile(file);
    if ('error' in loaded) problems.push(loaded.error);
    else for (const bot of loaded.bots) sources.push({ bot, file: shownPath(file) });
  }
  if (problems.length > 0) {
    throw new ReplyflowError(
      errorCodes.BOT_DEFINITION_INVALID,
      `cannot load the bots:\n  - ${problems.join('\n  - ')}`,
    );
  }
  return createBotRegistry(sources);
}

/**
 * The absolute paths of the bot files of `dir`, sorted (`*.ts`, `*.js`; not tests or
 * declarations; sub-folders hold helpers, not bots).
 *
 * @example
 * await listBotFiles('./bots'); // ['/app/bots/appointment.ts', '/app/bots/help.ts']
 */
export async function listBotFiles(dir: string): Promise<string[]> {
  const root = resolve(dir);
  try {
    const names = (await readdir(root)).filter((n) => botFile.test(n) && !skipped.test(n));
    return names.sort().map((name) => join(root, name));
  } catch (cause) {
    throw new ReplyflowError(
      errorCodes.BOT_DEFINITION_INVALID,
      `cannot read the bots folder ${root}: create it or set REPLYFLOW_BOTS_DIR`,
      { cause },
    );
  }
}

/**
 * Imports one bot file and returns the bots it exports, or why it cannot serve: it does not
 * load, or it exports no bot. `revision` makes the import a new module instance (a query on
 * its URL), so an edited file is read again: the hot reload of `replyflow dev` uses it.
 *
 * @example
 * const loaded = await importBotFile('/app/bots/appointment.ts');
 * if ('error' in loaded) console.error(loaded.error);
 */
export async function importBotFile(
  file: string,
  revision?: string,
): Promise<{ bots: Bot[] } | { error: string }> {
  const url = pathToFileURL(file).href + (revision === undefined ? '' : `?rev=${revision}`);
  let module: Record<string, unknown>;
  try {
    module = (await import(url)) as Record<string, unknown>;
  } catch (cause) {
    return { error: `${shownPath(file)} does not load: ${(cause as Error).message}` };
  }
  const bots = [...new Set(Object.values(module).filter(isBot))];
  if (bots.length === 0) {
    return {
      error: `${shownPath(file)} exports no bot: add \`export default defineBot({ ... })\``,
    };
  }
  return { bots };
}

/** A file as errors show it: relative to the working directory when inside it. */
export function shownPath(file: string): string {
  return relative(process.cwd(), file) || file;
}
