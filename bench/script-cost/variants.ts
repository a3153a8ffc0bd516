// The copies of a store script the bench runs in place of the real one, each with a part cut,
// to tell what the script's time is made of. Never loaded by replyflow: src/ is left as it is.
//
// Two kinds. A cut ("… up to X") returns right before a top-level line of the script, so the
// variants of one script, in order, run longer and longer prefixes of it and the difference
// between two neighbours is the cost of the part between them. A removal ("without X")
// replaces one statement and runs the rest. The script with its libraries in front is the text
// `defineStoreScripts` registers; `empty` keeps the keys and arguments and runs nothing, and
// `libraries` defines the library functions in front and returns.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { defineStoreScripts } from '../../src/store/redis/store-scripts.ts';

export interface StoreScript {
  /** `record-sent-13.lua` */
  file: string;
  numberOfKeys: number;
  /** As registered: libraries, then the script file. */
  lua: string;
  /** The script file's text alone (the tail of `lua`). */
  body: string;
  sha: string;
}

export interface Variant {
  /** What the variant runs, e.g. `… up to the value's SET` or `without the value's SET`. */
  name: string;
  lua: string;
  /** Loaded with FUNCTION LOAD (the script's body registered as a function) and run by FCALL. */
  asFunction?: boolean;
}

const scriptsDir = new URL('../../src/store/redis/scripts/', import.meta.url);

/** The store's scripts by SHA1, as `defineStoreScripts` registers them. */
export function storeScripts(): Map<string, StoreScript> {
  const byFile = new Map<string, StoreScript>();
  for (const lua of registeredLua(defineStoreScripts)) {
    const file = scriptFiles().find(({ body }) => lua.endsWith(body));
    if (!file) throw new Error('a registered script matches no file');
    byFile.set(sha1(lua), {
      file: file.file,
      numberOfKeys: Number(/-(\d+)\.lua$/.exec(file.file)![1]),
      lua,
      body: file.body,
      sha: sha1(lua),
    });
  }
  return byFile;
}

let files: Array<{ file: string; body: string }> | undefined;
function scriptFiles() {
  files ??= readdirSync(scriptsDir)
    .filter((file) => file.endsWith('.lua'))
    .map((file) => ({ file, body: readFileSync(new URL(file, scriptsDir), 'utf8') }));
  return files;
}

/**
 * The registered text (libraries, then the script) of `file` in another checkout of replyflow
 * (`tree`, its root), as its own `defineStoreScripts` builds it: the script before a change,
 * looped beside the current one on the same keyspace (`--compare-with`).
 */
export async function scriptLuaIn(tree: string, file: string): Promise<string> {
  const root = pathToFileURL(`${resolve(tree)}/`);
  const module = (await import(
    new URL('src/store/redis/store-scripts.ts', root).href
  )) as typeof import('../../src/store/redis/store-scripts.ts');
  const body = readFileSync(new URL(`src/store/redis/scripts/${file}`, root), 'utf8');
  const found = registeredLua(module.defineStoreScripts).find((lua) => lua.endsWith(body));
  if (!found) throw new Error(`${tree} registers no script ${file}`);
  return found;
}

/** The texts `define` registers (libraries, then the script), read off an unconnected client. */
function registeredLua(define: typeof defineStoreScripts): string[] {
  const connection = new Redis({ lazyConnect: true });
  define(connection);
  const set = (connection as unknown as { scriptsSet: Record<string, { lua: string }> }).scriptsSet;
  connection.disconnect();
  return Object.values(set).map(({ lua }) => lua);
}

export function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

/** A cut: run the script up to (not including) the first occurrence of `before`. */
interface Cut {
  upTo: string;
  before: string;
}
/** A removal: `replace` (each occurrence, at least one) by `with`. */
interface Removal {
  without: string;
  replace: string;
  with: string;
}

/**
 * The parts of each hot script, in the order they run. A cut's `before` must start a top-level
 * statement of the script (a `do return 0 end` goes in front of it).
 */
const parts: Record<string, { cuts: Cut[]; removals: Removal[] }> = {
  'commit-direct-11.lua': {
    cuts: [
      {
        upTo: 'busy and idle checks (EXISTS)',
        before: 'if not valueIs(KEYS[3], ARGV[1]) then',
      },
      { upTo: "the value's check (its mark)", before: 'local now = tonumber(ARGV[5])' },
      { upTo: "the outbox's and its head's checks", before: 'local ttl = tonumber(ARGV[3])' },
      { upTo: "the value's SET", before: 'if spills > 0 then' },
      { upTo: 'the transcript list', before: "if ARGV[8] ~= '' then" },
      { upTo: 'the timers zset', before: 'local counters = at + outbound + 1' },
      { upTo: 'counters (HINCRBY, PEXPIRE)', before: 'local handed = 0' },
    ],
    removals: [
      {
        without: 'the counters',
        replace:
          'changeCounterArgs(KEYS[11], ARGV, counters + 1, tonumber(ARGV[counters]), ARGV[12])',
        with: '',
      },
    ],
  },
  'record-sent-built-12.lua': {
    cuts: [
      {
        upTo: 'token HGET, records made first (EXISTS)',
        before: "local heads = redis.call('LRANGE', KEYS[2], 0, 1)",
      },
      {
        upTo: 'head and next (LRANGE)',
        before: 'if not valueIs(KEYS[3], ARGV[3]) then',
      },
      { upTo: "the value's check (its mark)", before: 'local now = tonumber(ARGV[6])' },
      {
        upTo: "the next message's checks",
        before: "redis.call('SET', KEYS[3], ARGV[4], 'KEEPTTL')",
      },
      { upTo: "the value's SET", before: 'local records = tonumber(ARGV[12])' },
      {
        upTo: 'records let go (SET EX), the transcript list',
        before: '-- LTRIM rather than LPOP',
      },
      { upTo: 'LTRIM, counters', before: "-- The guard's count is cut back" },
      { upTo: "the loop guard's count", before: 'if not next then' },
    ],
    removals: [
      {
        without: 'the counters',
        replace:
          'changeCounterArgs(KEYS[10], ARGV, countersAt + 1, tonumber(ARGV[countersAt]), ARGV[7])',
        with: '',
      },
      {
        without: "the loop guard's count (LPUSH, LTRIM, PEXPIRE)",
        replace: "if ARGV[8] ~= '' then\n  if redis.call('LPUSH'",
        with: "if false then\n  if redis.call('LPUSH'",
      },
    ],
  },
  'ingest-9.lua': {
    cuts: [
      { upTo: 'arguments read', before: 'for i = 13, #ARGV, 6 do' },
      {
        upTo: 'the item pushed (dedupe, RPUSH, ZADD, claim)',
        before: "if fresh > 0 and redis.call('ZCOUNT'",
      },
      { upTo: 'the announcement check', before: 'local reply = {0, pushed, heard}' },
    ],
    removals: [
      {
        without: 'the dedupe check (known(): GET value, applied log, LRANGE mailbox)',
        replace:
          "smsId == '' and known(ARGV[i], eventStart(ARGV[i + 1]) or cjson.decode(ARGV[i + 1]).id)",
        with: 'false',
      },
      {
        without: "the event id's read (passed as is)",
        replace: 'eventStart(ARGV[i + 1]) or cjson.decode(ARGV[i + 1]).id',
        with: "'bench-id'",
      },
      {
        without: "the claim's first view (LINDEX, originOf; the value as the dedupe check read it)",
        replace: `  local head = redis.call('LINDEX', KEYS[2] .. id, 0) or ''
  local value = headOf(id)
  local origin = originOf(head, value, KEYS[3])`,
        with: "  local head, value, origin = '', '', ''",
      },
    ],
  },
  'commit-step-17.lua': {
    cuts: [
      {
        upTo: 'arguments read, lock token HGET',
        before: "local head = redis.call('LINDEX', KEYS[2], 0)",
      },
      {
        upTo: 'mailbox head LINDEX, its start read',
        before: "local stored = redis.call('GET', KEYS[3])",
      },
      {
        upTo: "the value's GET + split",
        before: "local hadTimers = timers ~= nil and timers ~= ''",
      },
      { upTo: 'run ids, pending timers', before: 'local armAt = nil' },
      { upTo: 'timers cancelled/set', before: "local logged = kind ~= 'status'" },
      {
        upTo: 'applied log decode + encode',
        before: "if ARGV[4] ~= '' then\n  -- The reply's message",
      },
      {
        upTo: 'transcript entry, value built and SET',
        before: 'if armAt and #pending > 0 then',
      },
      { upTo: 'timers zset', before: "redis.call('LPOP', KEYS[2])\nif results" },
      { upTo: 'mailbox LPOP, results', before: 'changeCounters(KEYS[14], counters, countersTtl)' },
      { upTo: 'counters (HINCRBY, PEXPIRE)', before: "if outboundEvents ~= '' then" },
      { upTo: 'events, recipient, suppression', before: 'local outbound = tonumber(ARGV[13])' },
      {
        upTo: 'outbox RPUSH, claim, its head (outboxHead, sentSmsIdIn)',
        before: "if ARGV[4] ~= '' then\n  stored = ''",
      },
      {
        upTo: 'next mailbox head, release',
        before: "local lease = tonumber(redis.call('HGET', KEYS[1], 'lease'))",
      },
    ],
    removals: [
      {
        without: "the value's SET (the value still built)",
        replace: "redis.call('SET', KEYS[3], value, 'PX', recordTtl)",
        with: 'local _ = value',
      },
      {
        without: "the value's SET (the value still built)",
        replace: "redis.call('SET', KEYS[3], value)\n",
        with: 'local _ = value\n',
      },
      {
        without: 'the applied log decode + encode (kept as read)',
        replace: "local logged = kind ~= 'status'\nif logged then",
        with: "local logged = kind ~= 'status'\nif false then",
      },
      {
        without: 'the transcript entry',
        replace: "if kind == 'reply' and stateAfter ~= '' then",
        with: 'if false then',
      },
      {
        without: "originOf's second read of the value (the reply's origin)",
        replace: 'originOf(next, conversationHead(KEYS[3]), KEYS[7])',
        with: "''",
      },
    ],
  },
  'read-outbox-7.lua': {
    cuts: [
      { upTo: 'lock token HGET, lease ZADD', before: 'local dropped = {}' },
      { upTo: 'outboxHead (LINDEX, decode, EXISTS)', before: "if head == '' then" },
      { upTo: 'head decoded again', before: "if ARGV[5] ~= '' and (message.inDoubtSince" },
      { upTo: 'in-doubt check', before: 'return {head, sentSmsIdOf(' },
    ],
    removals: [
      {
        without: 'the sent guard lookup (sentSmsIdOf: GET value, decode messages)',
        replace: 'sentSmsIdOf(KEYS[2], message.id)',
        with: "''",
      },
    ],
  },
  'record-sent-13.lua': {
    cuts: [
      {
        upTo: 'arguments read',
        before: 'local seq, applied, timers, messages, record, transcript =',
      },
      { upTo: "the value's GET + split", before: "local head = redis.call('LINDEX', KEYS[2], 0)" },
      { upTo: 'outbox head LINDEX + decode', before: 'if popped and popped.contact == nil then' },
      {
        upTo: 'transcript entry (transcriptWith)',
        before: 'local location = string.match(ARGV[9]',
      },
      {
        upTo: 'messages line: record of its own (GET), entry added as text, oldest spilled',
        before: "if seq then\n  redis.call('SET', KEYS[3]",
      },
      { upTo: 'value built and SET', before: "local early = redis.call('LRANGE', KEYS[6], 0, -1)" },
      { upTo: 'early statuses LRANGE', before: "if popped then\n  redis.call('LPOP', KEYS[2])" },
      {
        upTo: 'outbox LPOP, counters, loop guard, unrecorded sends',
        before: "if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then",
      },
      { upTo: 'lock token HGET', before: 'local dropped = {}' },
      { upTo: 'next head (outboxHead)', before: "if redis.call('LLEN', KEYS[2]) == 0 then" },
    ],
    removals: [
      {
        without: "the value's SET (the value still built)",
        replace: `  redis.call('SET', KEYS[3], conversationValue(seq, applied, timers, messages, record, transcript),
    'KEEPTTL')`,
        with: '  local _ = conversationValue(seq, applied, timers, messages, record, transcript)',
      },
      {
        without: 'the spill of the oldest record (SET EX of a key of its own)',
        replace: "    redis.call('SET', messagePrefix .. spill[1], spill[2], 'EX', ttl)",
        with: '    local _ = spill',
      },
      {
        without: 'the transcript entry',
        replace: 'if popped and popped.contact == nil then',
        with: 'if false then',
      },
      {
        without: 'the counters (HINCRBY, PEXPIRE)',
        replace: '  changeCounters(KEYS[13], ARGV[15], ARGV[16])',
        with: '',
      },
      {
        without: 'the loop guard count (LPUSH, LTRIM, PEXPIRE)',
        replace: "  if type(popped.loopGuard) == 'table' then",
        with: '  if false then',
      },
    ],
  },
};

/** The variants of one script, in the order to report them: cuts in order, then removals. */
export function variantsOf(script: StoreScript): Variant[] {
  const library = script.lua.slice(0, script.lua.length - script.body.length);
  const variants: Variant[] = [
    { name: 'empty (same keys and arguments, `return 0`)', lua: 'return 0' },
    { name: 'libraries defined, `return 0`', lua: `${library}return 0` },
  ];
  const own = parts[script.file];
  for (const cut of own?.cuts ?? []) {
    const at = uniqueIndex(script, cut.before);
    variants.push({
      name: `… up to ${cut.upTo}`,
      lua: `${script.lua.slice(0, at)}do return 0 end\n${script.lua.slice(at)}`,
    });
  }
  variants.push({ name: 'whole script', lua: script.lua });
  // Removals that share a name are one variant (the same statement written in two places).
  const removals = new Map<string, string>();
  for (const removal of own?.removals ?? []) {
    const lua = removals.get(removal.without) ?? script.lua;
    const index = lua.indexOf(removal.replace);
    const found = index !== -1 || removals.has(removal.without);
    if (!found) throw new Error(`${script.file}: '${removal.replace}' is not in the script`);
    removals.set(removal.without, lua.split(removal.replace).join(removal.with));
  }
  for (const [without, lua] of removals) {
    if (lua === script.lua) throw new Error(`${script.file}: removing ${without} changed nothing`);
    variants.push({ name: `whole script without ${without}`, lua });
  }
  return variants;
}

/** Where `text` starts in the script's own part (after the libraries); it must occur once there. */
function uniqueIndex(script: StoreScript, text: string): number {
  const start = script.lua.length - script.body.length;
  const at = script.lua.indexOf(text, start);
  if (at === -1 || script.lua.indexOf(text, at + 1) !== -1) {
    throw new Error(`${script.file}: '${text}' must occur exactly once in the script`);
  }
  if (at !== 0 && script.lua[at - 1] !== '\n') {
    throw new Error(`${script.file}: '${text}' must start a line`);
  }
  return at;
}
