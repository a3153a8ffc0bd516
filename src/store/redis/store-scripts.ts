import { readdirSync, readFileSync } from 'node:fs';
import type { ChainableCommander } from 'ioredis';
import { coalesceWrites } from './coalesce-writes.ts';
import type { RedisConnection } from './redis-store-context.ts';

const scriptsDir = new URL('./scripts/', import.meta.url);
const libraryDir = new URL('./lib/', scriptsDir);

/** A script's command name on the ioredis instance, from its file name: `commit-step-17.lua` → `replyflowCommitStep`. */
function commandName(base: string): string {
  return `replyflow${base.replace(/(^|-)([a-z])/g, (_, __, letter: string) => letter.toUpperCase())}`;
}

/**
 * Local functions that several scripts share (Lua in Redis has no `require`): `lib/origin-of.lua`
 * defines `originOf`, and goes in front of every script that calls `originOf(`.
 */
const libraries = readdirSync(libraryDir)
  .filter((file) => file.endsWith('.lua'))
  .map((file) => {
    const lua = readFileSync(new URL(file, libraryDir), 'utf8');
    // Every function it defines: a script calling any of them needs the library.
    const names = [...lua.matchAll(/^local function (\w+)\(/gm)].map((match) => match[1]!);
    return { file, names, lua };
  });

const callsAny = (code: string, names: readonly string[]) =>
  names.some((name) => new RegExp(`(^|[^\\w.:])${name}\\(`, 'm').test(code));

/**
 * The script with the libraries it calls in front, and the libraries those call in front of
 * them (Lua in Redis has no `require`; a local function must be defined before its caller).
 */
function withLibraries(lua: string): string {
  const used: typeof libraries = [];
  const seen = new Set<string>();
  // Depth first, each library after the ones it calls.
  const add = (code: string) => {
    for (const library of libraries) {
      if (seen.has(library.file) || !callsAny(code, library.names)) continue;
      seen.add(library.file);
      add(library.lua);
      used.push(library);
    }
  };
  add(lua);
  return [...used.map((library) => library.lua), lua].join('\n');
}

const definitions = readdirSync(scriptsDir)
  .filter((file) => file.endsWith('.lua'))
  .map((file) => {
    const match = /^([a-z-]+)-(\d+)\.lua$/.exec(file);
    if (!match?.[1] || !match[2]) {
      throw new Error(`store script ${file} must be named <name>-<key count>.lua`);
    }
    return {
      base: match[1],
      name: commandName(match[1]),
      numberOfKeys: Number(match[2]),
      lua: withLibraries(readFileSync(new URL(file, scriptsDir), 'utf8')),
    };
  });

export type ScriptName =
  | 'ingest'
  | 'claim'
  | 'release'
  | 'read-inbox'
  | 'read-transcript'
  | 'commit-step'
  | 'read-outbox'
  | 'renew-outbox'
  | 'record-sent'
  | 'defer-outbound'
  | 'fail-outbound'
  | 'claim-due-timers'
  | 'reserve-send-slot'
  | 'remove-suppression'
  | 'add-suppression'
  | 'push-dead-letter'
  | 'upsert-recipients'
  | 'sweep-recipients'
  | 'prune-recipients'
  | 'claim-due-chunks'
  | 'fire-recipients'
  | 'settle-chunk'
  | 'set-campaign-state'
  | 'adjust-counters'
  | 'claim-due-events'
  | 'settle-event'
  | 'replay-event';

type Arg = string | number;
type ScriptCommand = (...args: Arg[]) => Promise<unknown>;

/**
 * Registers the store's Lua scripts on an ioredis instance (`defineCommand`: EVALSHA, with
 * EVAL when the server does not have the script yet) and calls them by name. Pipelines made
 * from the instance afterwards carry the scripts too.
 */
export function defineStoreScripts(redis: RedisConnection) {
  const byBase = new Map(definitions.map((definition) => [definition.base, definition]));
  const coalesce = coalesceWrites(redis);
  for (const { name, numberOfKeys, lua } of definitions) {
    redis.defineCommand(name, { numberOfKeys, lua });
  }

  const command = (
    target: RedisConnection | ChainableCommander,
    script: ScriptName,
    keys: Arg[],
  ) => {
    const definition = byBase.get(script);
    if (!definition)
      throw new Error(`store script ${script} is missing from ${scriptsDir.pathname}`);
    if (keys.length !== definition.numberOfKeys) {
      throw new Error(
        `store script ${script} takes ${definition.numberOfKeys} keys, got ${keys.length}`,
      );
    }
    return (target as unknown as Record<string, ScriptCommand>)[definition.name]!;
  };

  return {
    /** Runs a script and resolves to its reply; the calls of one tick share a socket write. */
    run(script: ScriptName, keys: Arg[], args: Arg[]): Promise<unknown> {
      coalesce();
      return command(redis, script, keys).call(redis, ...keys, ...args);
    },
    /** Queues a script call on a pipeline. */
    queue(pipeline: ChainableCommander, script: ScriptName, keys: Arg[], args: Arg[]): void {
      void command(pipeline, script, keys).call(pipeline, ...keys, ...args);
    },
  };
}

export type StoreScripts = ReturnType<typeof defineStoreScripts>;
