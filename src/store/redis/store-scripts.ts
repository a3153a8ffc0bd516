import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import type { ChainableCommander } from 'ioredis';
import { coalesceWrites } from './coalesce-writes.ts';
import { isCluster, type RedisConnection } from './redis-store-context.ts';
import { isReplyError } from './to-store-error.ts';

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

/**
 * A script's name as a Redis function: its file's base and the start of its text's SHA1
 * (`replyflow_commit_step_3fa9c1d2e4`), so that two releases sharing one Redis (a rolling
 * deploy) each call their own version, and a release finds its library loaded by its name.
 */
function functionNameOf(base: string, sha: string): string {
  return `replyflow_${base.replace(/-/g, '_')}_${sha.slice(0, 10)}`;
}

/**
 * The scripts that only read: registered with the `no-writes` flag, so that Redis runs them
 * while it is out of memory (a function that may write is then refused whole), and refuses
 * them if they ever write.
 */
const readOnlyScripts = new Set(['read-inbox', 'read-transcript']);

/**
 * The library `FUNCTION LOAD` takes for one script: the libraries it calls, defined once when
 * the library loads (a script run by EVALSHA defines them again at every call), then the
 * script's own text as the function's body, with `KEYS` and `ARGV` as its parameters.
 */
function functionLibrary(base: string, name: string, lua: string, body: string): string {
  const libraryPart = lua.slice(0, lua.length - body.length);
  const flags = readOnlyScripts.has(base) ? ", flags = {'no-writes'}" : '';
  return `#!lua name=${name}\n${libraryPart}\nredis.register_function{function_name = '${name}', callback = function(KEYS, ARGV)\n${body}\nend${flags}}\n`;
}

const definitions = readdirSync(scriptsDir)
  .filter((file) => file.endsWith('.lua'))
  .map((file) => {
    const match = /^([a-z-]+)-(\d+)\.lua$/.exec(file);
    if (!match?.[1] || !match[2]) {
      throw new Error(`store script ${file} must be named <name>-<key count>.lua`);
    }
    const body = readFileSync(new URL(file, scriptsDir), 'utf8');
    const lua = withLibraries(body);
    // The SHA1 EVALSHA calls it by.
    const sha = createHash('sha1').update(lua).digest('hex');
    const functionName = functionNameOf(match[1], sha);
    return {
      base: match[1],
      name: commandName(match[1]),
      numberOfKeys: Number(match[2]),
      lua,
      sha,
      functionName,
      library: functionLibrary(match[1], functionName, lua, body),
    };
  });

export type ScriptName =
  | 'ingest'
  | 'claim'
  | 'release'
  | 'read-inbox'
  | 'read-transcript'
  | 'commit-step'
  | 'commit-direct'
  | 'read-outbox'
  | 'last-look'
  | 'renew-outbox'
  | 'record-sent'
  | 'record-sent-built'
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

/** The store's scripts by their name as Redis functions, and by their SHA1 as scripts. */
export const storeScriptNames: ReadonlyMap<string, string> = new Map(
  definitions.flatMap((definition) => [
    [definition.functionName, definition.base],
    [definition.sha, definition.base],
  ]),
);

/** Each script's Redis function, by the script's base name: its name, and the library text. */
export const storeFunctions: ReadonlyMap<string, { name: string; library: string }> = new Map(
  definitions.map((definition) => [
    definition.base,
    { name: definition.functionName, library: definition.library },
  ]),
);

/** How each connection calls the scripts: as functions (Redis 7+), or by EVALSHA. */
interface FunctionsState {
  /** False once the server has shown it cannot take functions (no FUNCTION, or not allowed). */
  usable: boolean;
  /** The libraries being loaded, while they are. */
  loading?: Promise<void>;
}
const functionsByConnection = new WeakMap<RedisConnection, FunctionsState>();

/**
 * A reply (not a lost connection) saying the server has no FCALL or FUNCTION command (before
 * Redis 7), or that its ACL forbids them to this user: replies about those commands
 * themselves, never an error a script's own command raised after part of it ran.
 */
const refusesFunctions = (error: unknown) =>
  isReplyError(error) &&
  /^(ERR unknown command|NOPERM)\b.*\b(fcall|function)\b/i.test(error.message);

/** The server's reply to a FCALL of a function it does not have (never loaded, or lost). */
const isFunctionNotFound = (error: unknown) =>
  isReplyError(error) && /function not found/i.test(error.message);

/**
 * Loads every script's library on the one Redis, or on each master of a Cluster. A library
 * already there (loaded by another process of the same release) is left as it is. A master
 * that cannot be reached is skipped: the call that needed the libraries is on another master,
 * or, if on that one, fails as any call to it would. A reply refusing a load (no FUNCTION, an
 * ACL, a library that does not compile) is thrown.
 */
async function loadFunctions(redis: RedisConnection): Promise<void> {
  const nodes = isCluster(redis) ? redis.nodes('master') : [redis];
  const results = await Promise.allSettled(
    nodes.flatMap((node) =>
      definitions.map((definition) => node.call('FUNCTION', 'LOAD', definition.library)),
    ),
  );
  for (const result of results) {
    if (result.status === 'fulfilled') continue;
    const error: unknown = result.reason;
    if (isReplyError(error) && !/already exists/i.test(error.message)) throw error;
  }
}

/**
 * Registers the store's Lua scripts on an ioredis instance and calls them by name. `run` calls
 * each as a Redis function (FCALL; its library loaded on first need, and again after the
 * server lost it, as a restart without persistence does), so that the libraries a script
 * calls are defined once, not at every call. A server without functions (before Redis 7), or
 * one whose ACL forbids them, gets the same scripts by EVALSHA (`defineCommand`, with EVAL
 * when the server does not have the script yet). Pipelines use EVALSHA: ioredis loads the
 * scripts a pipeline needs before sending it.
 */
export function defineStoreScripts(redis: RedisConnection) {
  const byBase = new Map(definitions.map((definition) => [definition.base, definition]));
  const coalesce = coalesceWrites(redis);
  for (const { name, numberOfKeys, lua } of definitions) {
    redis.defineCommand(name, { numberOfKeys, lua });
  }
  // Shared by every caller on the connection (the store, the send limiter).
  const state = functionsByConnection.get(redis) ?? { usable: true };
  functionsByConnection.set(redis, state);

  const definitionOf = (script: ScriptName, keys: Arg[]) => {
    const definition = byBase.get(script);
    if (!definition)
      throw new Error(`store script ${script} is missing from ${scriptsDir.pathname}`);
    if (keys.length !== definition.numberOfKeys) {
      throw new Error(
        `store script ${script} takes ${definition.numberOfKeys} keys, got ${keys.length}`,
      );
    }
    return definition;
  };
  const command = (target: RedisConnection | ChainableCommander, script: ScriptName, keys: Arg[]) =>
    (target as unknown as Record<string, ScriptCommand>)[definitionOf(script, keys).name]!;

  /** Loads the libraries once for every call that found them missing at the same time. */
  const load = () => {
    state.loading ??= loadFunctions(redis).finally(() => {
      state.loading = undefined;
    });
    return state.loading;
  };
  const byEvalsha = (script: ScriptName, keys: Arg[], args: Arg[]) =>
    command(redis, script, keys).call(redis, ...keys, ...args);

  return {
    /** Runs a script and resolves to its reply; the calls of one tick share a socket write. */
    async run(script: ScriptName, keys: Arg[], args: Arg[]): Promise<unknown> {
      const { functionName } = definitionOf(script, keys);
      coalesce();
      if (!state.usable) return byEvalsha(script, keys, args);
      try {
        return await redis.fcall(functionName, keys.length, ...keys, ...args);
      } catch (error) {
        // Nothing ran: the server has no such function (never loaded, or lost), or no FCALL.
        if (refusesFunctions(error)) {
          state.usable = false;
          return byEvalsha(script, keys, args);
        }
        if (!isFunctionNotFound(error)) throw error;
      }
      try {
        await load();
      } catch (error) {
        if (!refusesFunctions(error)) throw error;
        state.usable = false;
        return byEvalsha(script, keys, args);
      }
      try {
        return await redis.fcall(functionName, keys.length, ...keys, ...args);
      } catch (error) {
        // Flushed again meanwhile (`FUNCTION FLUSH` from another client): this call by EVALSHA,
        // the next one loads them again.
        if (isFunctionNotFound(error)) return byEvalsha(script, keys, args);
        throw error;
      }
    },
    /** Queues a script call on a pipeline. */
    queue(pipeline: ChainableCommander, script: ScriptName, keys: Arg[], args: Arg[]): void {
      void command(pipeline, script, keys).call(pipeline, ...keys, ...args);
    },
  };
}

export type StoreScripts = ReturnType<typeof defineStoreScripts>;
