// `npm run bench -- script-cost`: what a turn's Redis time is made of (issue 26), measured
// apart. A real turn of replyflow is recorded (capture.ts) for conversations with N replies of
// history; then each hot script's call of that turn runs in a loop on its own keyspace, whole
// and as copies with parts cut (variants.ts), on the bench's own idle redis-server. See
// docs/benchmarks.md, "Where a turn's Redis time goes, measured apart (issue 26)".
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { storeFunctions, storeScriptNames } from '../../src/store/redis/store-scripts.ts';
import type { Benchmark } from '../lib/benchmark.ts';
import { machineInfo } from '../lib/machine.ts';
import { openFreshRedis } from '../lib/redis.ts';
import { fixed, markdownTable, median } from '../lib/stats.ts';
import { phoneNumber } from '../reply-loop/wiring.ts';
import {
  type CapturedTurn,
  captureTurns,
  type KeyState,
  loadKeyspace,
  saveKeyspace,
} from './capture.ts';
import {
  commandLoop,
  evalsha,
  type LoopResult,
  loop,
  restoreFor,
  type ScriptCall,
  type ScriptRef,
} from './measure.ts';
import type { MonitoredCommand } from './monitor.ts';
import {
  type StoreScript,
  scriptLuaIn,
  storeScripts,
  type Variant,
  variantsOf,
} from './variants.ts';

const usage = `script-cost [--histories 0,5,20] [--runs 5] [--iterations 1000] [--idle-seconds 10]
           [--scripts ingest,commit-step,read-outbox,record-sent] [--whole-only]
           [--compare-with <tree>]
  --histories: replies a conversation has had before the turn recorded, one turn per value
  --runs: rounds of loops (each variant once a round, the baseline first); medians are reported
  --iterations: calls per loop
  --whole-only: loop each script whole and empty only, not its cuts and removals (a quick
                before/after of a change to the scripts)
  --compare-with: the root of another checkout (a git worktree of the commit before a change):
                its version of each script is looped too, in the same rounds on the same
                keyspace (the turn's arguments are those of this tree's process)`;

const benchmark: Benchmark = {
  name: 'script-cost',
  description:
    "a turn's Redis time measured apart (issue 26): one real turn recorded, then each hot script looped on its keyspace, whole and with parts cut",
  run,
};
export default benchmark;

/** Commands replayed as they ran, except those that change no key or a connection's mode. */
const notReplayed = new Set([
  'subscribe',
  'unsubscribe',
  'psubscribe',
  'punsubscribe',
  'ssubscribe',
  'multi',
  'exec',
  'discard',
  'watch',
  'unwatch',
  'monitor',
  'quit',
  'script',
  'config',
  'slowlog',
]);

interface VariantResult {
  name: string;
  /** Medians over the runs, µs per call. */
  inCommand: number;
  redisCpu: number;
}

interface CallResult {
  history: number;
  file: string;
  /** Keys the call changes (restored before each call of a loop). */
  keysChanged: number;
  argumentBytes: number;
  conversationValueBytes: number;
  variants: VariantResult[];
}

async function run(args: readonly string[]): Promise<void> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      histories: { type: 'string', default: '0,5,20' },
      runs: { type: 'string', default: '5' },
      iterations: { type: 'string', default: '1000' },
      'idle-seconds': { type: 'string', default: '10' },
      scripts: { type: 'string', default: 'ingest,commit-step,read-outbox,record-sent' },
      'whole-only': { type: 'boolean', default: false },
      'compare-with': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  const histories = values.histories.split(',').map(Number);
  const runs = Number(values.runs);
  const iterations = Number(values.iterations);
  const wanted = values.scripts.split(',');
  const machine = machineInfo();
  const started = Date.now();
  const server = await openFreshRedis();
  const redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
  try {
    console.log(
      `script-cost: ${machine.cpus} CPUs (${machine.cpuModel}), Node ${machine.node}, Redis ${server.version}, ` +
        `load average ${machine.loadAverage.join(' ')}, at ${machine.commit}`,
    );
    const scripts = storeScripts();
    const nameOf = (command: MonitoredCommand) => {
      const sha = scriptShaOf(command, scripts);
      if (sha === undefined) return command.name;
      return scripts.get(sha)?.file ?? `script ${sha.slice(0, 8)}`;
    };
    const { turns, idle } = await captureTurns(
      server.url,
      redis,
      histories,
      Number(values['idle-seconds']),
      nameOf,
    );
    for (const script of scripts.values()) await redis.script('LOAD', script.lua);

    const report: string[] = [];
    report.push(
      `Idle replyflow process (all roles, at rest), top-level commands per second over ${idle.seconds} s:`,
      markdownTable(
        ['command', 'per second'],
        Object.entries(idle.perSecond)
          .sort((a, b) => b[1] - a[1])
          .map(([name, rate]) => [name, fixed(rate, 2)]),
      ),
      '',
    );
    for (const turn of turns) report.push(describeTurn(turn, nameOf), '');

    // The primitives: what any call costs Redis.
    const primitives = await measurePrimitives(redis, runs, iterations);
    report.push(
      `Primitives (medians of ${runs} loops of ${iterations} calls; Redis CPU per call from INFO cpu, in-command from commandstats):`,
      markdownTable(
        ['call', 'in-command µs', 'Redis CPU µs per call'],
        primitives.map((p) => [p.name, fixed(p.inCommand, 2), fixed(p.redisCpu, 2)]),
      ),
      '',
    );

    const results: CallResult[] = [];
    for (const turn of turns) {
      const calls = await replay(redis, turn, scripts, wanted);
      for (const call of calls) {
        const script = [...scripts.values()].find((s) => s.sha === call.sha)!;
        const result = await measureCall(
          redis,
          call,
          script,
          runs,
          iterations,
          turn.history,
          values['whole-only'],
          values['compare-with'],
        );
        results.push(result);
        report.push(describeCall(result), '');
        console.log(describeCall(result), '\n');
      }
    }
    report.push(summaryTable(results));
    const text = report.join('\n');
    console.log(`\n${text}\n`);
    mkdirSync(new URL('../results/', import.meta.url), { recursive: true });
    const file = new URL(
      `../results/script-cost-${new Date(started).toISOString().replace(/[:.]/g, '-')}.json`,
      import.meta.url,
    );
    writeFileSync(
      file,
      `${JSON.stringify(
        {
          machine: { ...machine, loadAverageAtEnd: os.loadavg(), redis: server.version },
          settings: { histories, runs, iterations },
          idle,
          turns: turns.map((turn) => ({
            history: turn.history,
            windowMs: turn.windowMs,
            commands: turn.commands.map(nameOf),
          })),
          primitives,
          results,
        },
        null,
        2,
      )}\n`,
    );
    console.log(`raw results: ${file.pathname} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  } finally {
    redis.disconnect();
    await server.stop();
  }
}

/**
 * The SHA1 of the store script a command ran (EVALSHA, EVAL, or FCALL of its function), or
 * undefined for a command that is not a script's.
 */
function scriptShaOf(
  command: MonitoredCommand,
  scripts: Map<string, StoreScript>,
): string | undefined {
  const first = command.args[0]?.toString() ?? '';
  if (command.name === 'evalsha') return first;
  if (command.name === 'eval') return createHash('sha1').update(command.args[0]!).digest('hex');
  if (command.name !== 'fcall') return undefined;
  const base = storeScriptNames.get(first);
  const script = [...scripts.values()].find((s) => s.file.replace(/-\d+\.lua$/, '') === base);
  return script?.sha ?? first;
}

/** The recorded turn's top-level commands, in order. */
function describeTurn(turn: CapturedTurn, nameOf: (command: MonitoredCommand) => string): string {
  const counts = new Map<string, number>();
  for (const command of turn.commands) {
    const name = nameOf(command);
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return (
    `Turn after ${turn.history} replies: ${turn.commands.length} top-level commands in ${turn.windowMs} ms ` +
    `(${[...counts].map(([name, count]) => `${name} ×${count}`).join(', ')}); in order: ` +
    turn.commands.map(nameOf).join(' → ')
  );
}

/**
 * Replays the turn's commands from its keyspace and keeps, for each wanted script's first call,
 * the keyspace just before it.
 */
async function replay(
  redis: Redis,
  turn: CapturedTurn,
  scripts: Map<string, StoreScript>,
  wanted: readonly string[],
): Promise<ScriptCall[]> {
  await loadKeyspace(redis, turn.before);
  const calls: ScriptCall[] = [];
  for (const command of turn.commands) {
    if (notReplayed.has(command.name)) continue;
    const sha = scriptShaOf(command, scripts);
    if (sha !== undefined) {
      // Replayed by EVALSHA (numkeys, keys, arguments: the same after FCALL's function name).
      const script = scripts.get(sha);
      const base = script?.file.replace(/-\d+\.lua$/, '');
      if (script && base && wanted.includes(base) && !calls.some((c) => c.sha === sha)) {
        calls.push({
          file: script.file,
          sha,
          args: command.args.slice(1),
          before: await saveKeyspace(redis),
        });
      }
      await redis.callBuffer('evalsha', sha, ...command.args.slice(1));
      continue;
    }
    // A blocking read is replayed without blocking.
    const args = [...command.args];
    const block = args.findIndex((arg) => arg.toString().toUpperCase() === 'BLOCK');
    if (block !== -1) args.splice(block, 2);
    await redis.callBuffer(command.name, ...args).catch((error: Error) => {
      console.warn(`replay: ${command.name} failed: ${error.message}`);
    });
  }
  return calls;
}

async function measureCall(
  redis: Redis,
  call: ScriptCall,
  script: StoreScript,
  runs: number,
  iterations: number,
  history: number,
  wholeOnly: boolean,
  compareWith?: string,
): Promise<CallResult> {
  // Whole only: the cuts and removals are not built, so a changed script needs no new cuts.
  const variants: Variant[] = wholeOnly
    ? [
        { name: 'empty (same keys and arguments, `return 0`)', lua: 'return 0' },
        { name: 'whole script', lua: script.lua },
      ]
    : variantsOf(script);
  if (compareWith) {
    // The same call by the other tree's script, in the same rounds: a change's effect, measured
    // apart from the drift between two runs.
    variants.push({
      name: `whole script, as in ${compareWith}`,
      lua: await scriptLuaIn(compareWith, script.file),
    });
  }
  // The whole script as replyflow runs it, a Redis function (FUNCTION LOAD once, FCALL by
  // name): its libraries defined once at load, not at every call.
  variants.push({ name: 'whole script as a function (FCALL)', lua: script.lua, asFunction: true });
  const refs = new Map<string, ScriptRef>();
  for (const variant of variants) {
    if (variant.asFunction) {
      // The library replyflow loads (FUNCTION LOAD), with its function's name.
      const loaded = storeFunctions.get(script.file.replace(/-\d+\.lua$/, ''));
      if (!loaded) throw new Error(`${script.file} has no Redis function`);
      await redis.call('FUNCTION', 'LOAD', 'REPLACE', loaded.library);
      refs.set(variant.name, { command: 'fcall', id: loaded.name });
      continue;
    }
    refs.set(variant.name, evalsha(String(await redis.script('LOAD', variant.lua))));
  }
  const { restore, changed } = await restoreFor(redis, call);
  await loadKeyspace(redis, call.before);
  const valueBytes = await conversationValueBytes(redis, call.before, history);
  // The same call on the keyspace with the conversation value's transcript line left out: what
  // the transcript in the value costs this call (the transcript kept elsewhere).
  const lean = await withoutTranscriptLine(redis, call.before, history);
  const leanCall = lean && { ...call, before: lean };
  const leanRestore = leanCall && (await restoreFor(redis, leanCall)).restore;
  const samples = new Map<string, Array<{ inCommand: number; redisCpu: number }>>();
  const sample = (name: string, result: LoopResult, baseline: LoopResult) => {
    const list = samples.get(name) ?? [];
    list.push({
      inCommand: result.evalshaUsec / Math.max(1, result.evalshaCalls),
      redisCpu: (result.cpuUs - baseline.cpuUs) / iterations,
    });
    samples.set(name, list);
  };
  // A short loop of each first: scripts compiled, caches warm.
  for (const variant of variants) {
    await loop(redis, restore, refs.get(variant.name), call.args, 50);
  }
  for (let r = 0; r < runs; r++) {
    await loadKeyspace(redis, call.before);
    const baseline = await loop(redis, restore, undefined, call.args, iterations);
    // Rotated each run, so that a drift of the machine favours no variant.
    const order = variants.map((_, i) => variants[(i + r) % variants.length]!);
    for (const variant of order) {
      await loadKeyspace(redis, call.before);
      sample(
        variant.name,
        await loop(redis, restore, refs.get(variant.name), call.args, iterations),
        baseline,
      );
    }
    if (leanCall && leanRestore) {
      await loadKeyspace(redis, leanCall.before);
      const leanBaseline = await loop(redis, leanRestore, undefined, call.args, iterations);
      sample(
        leanVariant,
        await loop(redis, leanRestore, evalsha(call.sha), call.args, iterations),
        leanBaseline,
      );
    }
  }
  const names = [...variants.map((variant) => variant.name), ...(leanCall ? [leanVariant] : [])];
  return {
    history,
    file: call.file,
    keysChanged: changed,
    argumentBytes: call.args.reduce((sum, arg) => sum + arg.length, 0),
    conversationValueBytes: valueBytes,
    variants: names.map((name) => {
      const list = samples.get(name)!;
      return {
        name,
        inCommand: median(list.map((s) => s.inCommand)),
        redisCpu: median(list.map((s) => s.redisCpu)),
      };
    }),
  };
}

function describeCall(result: CallResult): string {
  const rows: string[][] = [];
  let previous: VariantResult | undefined;
  const whole = result.variants.find((v) => v.name === 'whole script')!;
  for (const variant of result.variants) {
    const isCut = variant.name.startsWith('…') || variant.name === 'whole script';
    const isRemoval =
      variant.name.startsWith('whole script without') || variant.name === leanVariant;
    rows.push([
      variant.name,
      fixed(variant.inCommand, 1),
      fixed(variant.redisCpu, 1),
      isCut && previous ? fixed(variant.inCommand - previous.inCommand, 1) : '',
      isRemoval ? fixed(whole.inCommand - variant.inCommand, 1) : '',
    ]);
    if (!isRemoval) previous = variant;
  }
  return [
    `${result.file}, after ${result.history} replies (${result.keysChanged} keys changed, ${result.argumentBytes} bytes of arguments, conversation value ${result.conversationValueBytes} bytes):`,
    markdownTable(
      [
        'variant',
        'in-command µs',
        'Redis CPU µs per call',
        'Δ in-command (this part)',
        'saved by the removal',
      ],
      rows,
    ),
  ].join('\n');
}

function summaryTable(results: readonly CallResult[]): string {
  const histories = [...new Set(results.map((r) => r.history))];
  const files = [...new Set(results.map((r) => r.file))];
  const cell = (file: string, history: number, pick: (r: CallResult) => number) => {
    const result = results.find((r) => r.file === file && r.history === history);
    return result ? fixed(pick(result), 0) : '–';
  };
  const of = (name: string) => (r: CallResult) =>
    r.variants.find((v) => v.name.startsWith(name))?.redisCpu ?? Number.NaN;
  const inOf = (name: string) => (r: CallResult) =>
    r.variants.find((v) => v.name.startsWith(name))?.inCommand ?? Number.NaN;
  return [
    'Per script, µs per call: whole script in-command / Redis CPU; empty call (same arguments) Redis CPU:',
    markdownTable(
      [
        'script',
        ...histories.flatMap((h) => [`after ${h}: in-command`, 'Redis CPU', 'empty call CPU']),
      ],
      files.map((file) => [
        file,
        ...histories.flatMap((h) => [
          cell(file, h, inOf('whole script')),
          cell(file, h, of('whole script')),
          cell(file, h, of('empty')),
        ]),
      ]),
    ),
  ].join('\n');
}

async function measurePrimitives(
  redis: Redis,
  runs: number,
  iterations: number,
): Promise<Array<{ name: string; inCommand: number; redisCpu: number }>> {
  await redis.flushall('SYNC');
  await redis.set('bench:k', 'v');
  // 16 KB of text with a tab every 80 bytes, as a transcript line has between entries.
  const text = Array.from({ length: 200 }, (_, i) => `o[${i},"x","${'y'.repeat(70)}"]`)
    .join('\t')
    .slice(0, 16_000);
  await redis.set('bench:big', text);
  const calls20 = Array.from({ length: 20 }, () => "redis.call('EXISTS', KEYS[1])").join('\n');
  const noArgument: Buffer[] = [];
  const luas: Array<[string, string, Buffer[]]> = [
    ['EVALSHA `return 0`, 1 key', 'return 0', noArgument],
    ['EVALSHA `return 0`, 1 key, a 16 KB argument', 'return 0', [Buffer.from(text)]],
    ['EVALSHA with 20 × redis.call EXISTS', `${calls20}\nreturn 0`, noArgument],
    [
      'EVALSHA with redis.call STRLEN of a 16 KB value',
      "redis.call('STRLEN', 'bench:big')\nreturn 0",
      noArgument,
    ],
    [
      'EVALSHA with redis.call GET of a 16 KB value',
      "redis.call('GET', 'bench:big')\nreturn 0",
      noArgument,
    ],
    [
      'EVALSHA with GET of 16 KB and string.gsub counting its tabs',
      "local _, n = string.gsub(redis.call('GET', 'bench:big'), '\\t', '')\nreturn 0",
      noArgument,
    ],
    [
      'EVALSHA with GET of 16 KB and one concatenation of it',
      "local v = redis.call('GET', 'bench:big') .. 'z'\nreturn 0",
      noArgument,
    ],
  ];
  const samples = new Map<string, Array<{ inCommand: number; redisCpu: number }>>();
  const add = (name: string, inCommand: number, redisCpu: number) => {
    const list = samples.get(name) ?? [];
    list.push({ inCommand, redisCpu });
    samples.set(name, list);
  };
  for (let r = 0; r < runs; r++) {
    const ping = await commandLoop(redis, 'ping', [], iterations);
    add('PING', ping.usecPerCall, ping.cpuPerCall);
    const get = await commandLoop(redis, 'get', ['bench:k'], iterations);
    add('GET of a 1-byte value', get.usecPerCall, get.cpuPerCall);
    for (const [name, lua, extra] of luas) {
      const sha = String(await redis.script('LOAD', lua));
      const args = [Buffer.from('1'), Buffer.from('bench:k'), ...extra];
      const result = await loop(redis, undefined, evalsha(sha), args, iterations);
      add(name, result.evalshaUsec / Math.max(1, result.evalshaCalls), result.cpuUs / iterations);
    }
  }
  return [...samples].map(([name, list]) => ({
    name,
    inCommand: median(list.map((s) => s.inCommand)),
    redisCpu: median(list.map((s) => s.redisCpu)),
  }));
}

const leanVariant = 'whole script, on the value with no transcript line';

/** The recorded conversation's value key (its phone is `phoneNumber(history)`). */
function conversationKeyOf(keyspace: readonly KeyState[], history: number): Buffer | undefined {
  const phone = phoneNumber(history);
  return keyspace.find(
    (state) => state.key.toString().includes(':conv:') && state.key.toString().includes(phone),
  )?.key;
}

/** The length of the recorded conversation's value, with `keyspace` loaded. */
async function conversationValueBytes(
  redis: Redis,
  keyspace: readonly KeyState[],
  history: number,
): Promise<number> {
  const key = conversationKeyOf(keyspace, history);
  return key ? await redis.strlen(key) : 0;
}

/**
 * `keyspace` with the conversation value's sixth line (the transcript, conversation-value.ts)
 * left out, or undefined when the value has none.
 */
async function withoutTranscriptLine(
  redis: Redis,
  keyspace: readonly KeyState[],
  history: number,
): Promise<KeyState[] | undefined> {
  const key = conversationKeyOf(keyspace, history);
  if (!key) return undefined;
  await loadKeyspace(redis, keyspace);
  const value = await redis.get(key);
  const lines = value?.split('\n') ?? [];
  if (lines.length < 6) return undefined;
  await redis.set(key, lines.slice(0, 5).join('\n'), 'KEEPTTL');
  return saveKeyspace(redis);
}
