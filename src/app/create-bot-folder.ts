import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BotSource } from '../bot/bot-registry.ts';
import type { Bot } from '../bot/define-bot.ts';
import { importBotFile, listBotFiles, shownPath } from '../bot/load-bots.ts';

/** A bot file that cannot serve, and why. */
export interface BotLoadError {
  file: string;
  message: string;
}

interface FileState {
  hash: string;
  /** The bots this file serves: the last version that loaded. */
  bots: Bot[];
  error?: string;
}

/**
 * The bot files of a folder, read again on demand: only the files whose content (or a helper's)
 * changed are imported again, each as a new module instance named by that content's hash. A
 * file that fails keeps the bots of its last version that loaded.
 */
export function createBotFolder(dir: string) {
  const files = new Map<string, FileState>();
  return {
    async read(): Promise<{ sources: BotSource[]; reloaded: string[]; errors: BotLoadError[] }> {
      const errors: BotLoadError[] = [];
      const reloaded: string[] = [];
      let paths: string[];
      let helpers: string;
      try {
        paths = await listBotFiles(dir);
        helpers = await hashHelpers(dir, paths);
      } catch (error) {
        const problem = { file: shownPath(dir), message: (error as Error).message };
        return { sources: sourcesOf(files), reloaded, errors: [problem] };
      }
      for (const known of [...files.keys()]) if (!paths.includes(known)) files.delete(known);
      for (const file of paths) {
        let hash: string;
        try {
          // A helper's change is a change of every bot: they are imported again with it.
          hash = createHash('sha256')
            .update(await readFile(file))
            .update(helpers)
            .digest('hex')
            .slice(0, 16);
        } catch {
          continue; // Deleted between the listing and the read: the next event reloads.
        }
        const known = files.get(file);
        if (known?.hash === hash) {
          if (known.error) errors.push({ file: shownPath(file), message: known.error });
          continue;
        }
        // The hash names the module instance: a file put back as it was reuses it.
        const loaded = await importBotFile(file, hash);
        if ('error' in loaded) {
          files.set(file, { hash, bots: known?.bots ?? [], error: loaded.error });
          errors.push({ file: shownPath(file), message: loaded.error });
        } else {
          files.set(file, { hash, bots: loaded.bots });
          reloaded.push(...loaded.bots.map((bot) => bot.id));
        }
      }
      return { sources: sourcesOf(files), reloaded, errors };
    },
  };
}

function sourcesOf(files: Map<string, FileState>): BotSource[] {
  return [...files].flatMap(([file, state]) =>
    state.bots.map((bot) => ({ bot, file: shownPath(file) })),
  );
}

/** A hash of every file of the folder that is not a bot (helpers, data), sub-folders included. */
async function hashHelpers(dir: string, bots: string[]): Promise<string> {
  const hash = createHash('sha256');
  for (const file of (await helperFiles(dir)).filter((f) => !bots.includes(f)).sort()) {
    hash.update(file);
    hash.update(await readFile(file).catch(() => ''));
  }
  return hash.digest('hex');
}

/** Every file below `dir`, except in dependencies and hidden folders (node_modules, .git). */
async function helperFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isFile()) files.push(path);
    else if (entry.isDirectory() && entry.name !== 'node_modules' && !entry.name.startsWith('.')) {
      files.push(...(await helperFiles(path).catch(() => [])));
    }
  }
  return files;
}
