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
  .map((file) => ({
    name: file
      .slice(0, -'.lua'.length)
      .replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase()),
    lua: readFileSync(new URL(file, libraryDir), 'utf8'),
  }));

function withLibraries(lua: string): string {
  const used = libraries.filter((library) => lua.includes(`${library.name}(`));
  return [...used.map((library) => library.lua), lua].join('\n');
}

/** The scripts, read from disk once per process: file name → { command name, key count, source }. */
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
  | 'commit-step'
  | 'read-outbox'
  | 'record-sent'
  | 'defer-outbound'
  | 'fail-outbound'
  | 'claim-due-timers'
  | 'read-timers'
  | 'reserve-send-slot';

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
