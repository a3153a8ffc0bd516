import { type FSWatcher, watch } from 'node:fs';
import { register } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BotRegistry } from '../bot/bot-registry.ts';
import { createBotRegistry } from '../bot/bot-registry.ts';
import { shownPath } from '../bot/load-bots.ts';
import { errorCodes, ReplyflowError } from '../errors.ts';
import type { Logger } from '../observability/logger.ts';
import { type BotLoadError, createBotFolder } from './create-bot-folder.ts';
import { reportBotChanges } from './report-bot-changes.ts';

export type { BotLoadError } from './create-bot-folder.ts';

/** What one reload changed: the ids of the bots read again, and the files that fail now. */
export interface BotsChange {
  reloaded: string[];
  errors: BotLoadError[];
}

/** The bots of a folder, kept current while it changes (`replyflow dev`). */
export interface LiveBots {
  /**
   * A registry whose getters read the current bots: the worker and the routes hold this one
   * object, and see each reload without being told.
   */
  readonly live: BotRegistry;
  /** The bots served now. */
  registry(): BotRegistry;
  /** The files that failed at the last reload (their previous version, if any, still serves). */
  errors(): BotLoadError[];
  /** Called after every reload; returns the unsubscribe function. */
  onChange(listener: (change: BotsChange) => void): () => void;
  /** Reads the folder again now; the watcher calls it once changes settle. */
  reload(): Promise<BotsChange>;
  close(): void;
}

export interface WatchBotsOptions {
  dir: string;
  logger: Logger;
  /** Quiet time after the last file event before reloading (editors write in several steps). */
  debounceMs?: number;
  /** false: no watcher (`replyflow chat`); `reload()` still works. */
  watch?: boolean;
}

/**
 * Loads the bots of `dir`, then watches the folder (recursively: `fs.watch` does it on Linux
 * since Node 20) and reloads within `debounceMs` of a change. A file whose content changed is
 * imported again as a new module instance; one that fails keeps its previous version serving
 * and its error is reported (log and `errors()`). At start, any failure is fatal, as in
 * `loadBots`: there is no previous version to keep.
 */
export async function watchBots(options: WatchBotsOptions): Promise<LiveBots> {
  const { logger } = options;
  const dir = resolve(options.dir);
  const folder = createBotFolder(dir);
  const listeners = new Set<(change: BotsChange) => void>();
  let current: BotRegistry = { bots: new Map(), byKeyword: new Map(), fallback: undefined };
  let errors: BotLoadError[] = [];
  let started = false;

  async function load(): Promise<BotsChange> {
    const read = await folder.read();
    const problems = [...read.errors];
    let reloaded = read.reloaded;
    try {
      const next = createBotRegistry(read.sources);
      if (started) reportBotChanges(current, next, logger);
      current = next;
    } catch (error) {
      // Two bots with one id, a keyword claimed twice: the previous set keeps serving.
      problems.push({ file: shownPath(dir), message: (error as Error).message });
      reloaded = [];
    }
    return { reloaded, errors: problems };
  }

  let reloading: Promise<BotsChange> | undefined;
  let again = false;
  async function reload(): Promise<BotsChange> {
    if (reloading) {
      again = true;
      return reloading;
    }
    reloading = (async () => {
      let change: BotsChange;
      do {
        again = false;
        change = await load();
      } while (again);
      return change;
    })();
    try {
      const change = await reloading;
      errors = change.errors;
      for (const error of change.errors) {
        logger.error(
          { file: error.file, code: errorCodes.BOT_DEFINITION_INVALID },
          `bot file not loaded; its previous version (if any) keeps serving: ${error.message}`,
        );
      }
      for (const listener of listeners) listener(change);
      return change;
    } finally {
      reloading = undefined;
    }
  }

  // Helpers a bot imports from the folder are read again with it (see bot-reload-hooks.mjs).
  if (options.watch !== false && !hooked.has(dir)) {
    hooked.add(dir);
    register(new URL('./bot-reload-hooks.mjs', import.meta.url), {
      data: { root: pathToFileURL(join(dir, '/')).href },
    });
  }
  const first = await load();
  if (first.errors.length > 0) {
    throw new ReplyflowError(
      errorCodes.BOT_DEFINITION_INVALID,
      `cannot load the bots:\n  - ${first.errors.map((e) => e.message).join('\n  - ')}`,
    );
  }
  started = true;

  let watcher: FSWatcher | undefined;
  let timer: NodeJS.Timeout | undefined;
  if (options.watch !== false) {
    watcher = watch(dir, { recursive: true }, () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        reload().catch((error: unknown) => logger.error({ err: error }, 'bots reload failed'));
      }, options.debounceMs ?? 100);
    });
    watcher.on('error', (error) =>
      logger.warn({ err: error }, 'stopped watching the bots folder; restart to pick up changes'),
    );
  }

  return {
    live: {
      get bots() {
        return current.bots;
      },
      get byKeyword() {
        return current.byKeyword;
      },
      get fallback() {
        return current.fallback;
      },
    },
    registry: () => current,
    errors: () => errors,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    reload,
    close() {
      clearTimeout(timer);
      watcher?.close();
    },
  };
}

/** Folders whose helper modules the reload hooks already follow (one registration each). */
const hooked = new Set<string>();
