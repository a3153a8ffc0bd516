// Where a turn's Redis time goes (issue 26): INFO commandstats over the warm phase (CONFIG
// RESETSTAT before it), and with --profile-redis a phase with SLOWLOG logging every command,
// whose EVALSHA entries tell the scripts apart (commandstats lumps them all in `evalsha`).
import { readdirSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { storeScriptNames } from '../../src/store/redis/store-scripts.ts';
import { fixed, markdownTable } from '../lib/stats.ts';

/** Per command (lower case, as INFO names them): calls and µs spent, over a phase. */
export type CommandStats = Record<string, { calls: number; usec: number }>;

/** What SLOWLOG logged over the profile phase, by script file or command name. */
export interface RedisProfile {
  /** Turns answered during the phase. */
  turns: number;
  /**
   * `calls` and `usec` (SLOWLOG's duration, a script's including its inner commands) by name:
   * a script by its file (`commit-step-17.lua`), a command by its name; a command a script ran
   * is `commit-step-17.lua › hget`.
   */
  entries: Record<string, { calls: number; usec: number }>;
  /** SLOWLOG entries read, and whether the log was full (then some were lost). */
  logged: number;
  full: boolean;
}

/** Commands of the bench itself, left out of the profiles. */
const benchCommands = new Set(['info', 'config', 'slowlog', 'client', 'scan', 'unlink']);
const slowlogMaxLen = 2_000_000;

/** INFO commandstats, parsed. */
export async function readCommandStats(redis: Redis): Promise<CommandStats> {
  const info = await redis.info('commandstats');
  const stats: CommandStats = {};
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
    stats[match[1]!.toLowerCase()] = { calls: Number(match[2]), usec: Number(match[3]) };
  }
  return stats;
}

/** Sets SLOWLOG to log every command from now on, from empty. */
export async function startSlowlog(redis: Redis): Promise<void> {
  await redis.config('SET', 'slowlog-log-slower-than', '0');
  await redis.config('SET', 'slowlog-max-len', String(slowlogMaxLen));
  await redis.call('SLOWLOG', 'RESET');
}

/** Reads what SLOWLOG logged since `startSlowlog`, by script or command, and stops logging. */
export async function takeSlowlog(redis: Redis): Promise<Omit<RedisProfile, 'turns'>> {
  await redis.config('SET', 'slowlog-log-slower-than', '-1');
  const log = (await redis.call('SLOWLOG', 'GET', '-1')) as Array<
    [number, number, number, string[], string, string]
  >;
  await redis.call('SLOWLOG', 'RESET');
  const names = scriptNamesBySha();
  const entries: RedisProfile['entries'] = {};
  // Oldest first: the commands a script runs are logged before the script itself (each as it
  // ends), and Redis runs one command at a time, so the inner entries since the last top-level
  // one are that script's.
  let inner: Array<[string, number]> = [];
  // A script's SHA1 (EVALSHA) or its name as a function (FCALL).
  for (const [, , usec, [command = '?', sha = ''], address] of [...log].reverse()) {
    const name = command.toLowerCase();
    // A command a script ran comes from Lua's own client, whose address is '?:0'.
    if (address === '?:0' || !address) {
      inner.push([name, usec]);
      continue;
    }
    if (benchCommands.has(name)) {
      inner = [];
      continue;
    }
    const key = /^(evalsha|fcall)$/.test(name)
      ? (names.get(sha) ?? `script ${sha.slice(0, 8)}`)
      : name;
    tallyInto(entries, key, 1, usec);
    for (const [innerName, innerUsec] of inner) {
      tallyInto(entries, `${key} › ${innerName}`, 1, innerUsec);
    }
    inner = [];
  }
  return { entries, logged: log.length, full: log.length >= slowlogMaxLen };
}

/** Adds calls and µs to `name`'s entry of `into`. */
function tallyInto(into: CommandStats, name: string, calls: number, usec: number): void {
  const entry = into[name] ?? { calls: 0, usec: 0 };
  entry.calls += calls;
  entry.usec += usec;
  into[name] = entry;
}

let shaNames: Map<string, string> | undefined;

/**
 * The store's scripts by SHA1 (EVALSHA) and by their name as Redis functions (FCALL), named
 * by their file (`commit-step-17.lua`).
 */
export function scriptNamesBySha(): Map<string, string> {
  if (shaNames) return shaNames;
  const files = readdirSync(new URL('../../src/store/redis/scripts/', import.meta.url)).filter(
    (file) => file.endsWith('.lua'),
  );
  const fileOf = (base: string) =>
    files.find((file) => file.replace(/-\d+\.lua$/, '') === base) ?? base;
  shaNames = new Map([...storeScriptNames].map(([id, base]) => [id, fileOf(base)]));
  return shaNames;
}

/** Sums of several runs' command stats, divided by their turns: per turn. */
export function commandStatsPerTurn(
  phases: ReadonlyArray<{ stats: CommandStats; turns: number }>,
): CommandStats {
  const total: CommandStats = {};
  let turns = 0;
  for (const { stats, turns: phaseTurns } of phases) {
    turns += phaseTurns;
    for (const [name, { calls, usec }] of Object.entries(stats)) {
      if (benchCommands.has(name.split('|')[0]!)) continue;
      tallyInto(total, name, calls, usec);
    }
  }
  const perTurn: CommandStats = {};
  for (const [name, { calls, usec }] of Object.entries(total)) {
    perTurn[name] = { calls: calls / Math.max(1, turns), usec: usec / Math.max(1, turns) };
  }
  return perTurn;
}

/**
 * The profile of one variant, over its runs: INFO commandstats of the warm phases (per command,
 * a script's inner commands counted both in `evalsha` and on their own) and, when taken, the
 * SLOWLOG split by script. µs are Redis's own wall-clock timing of each command: on a busy
 * machine they include the time Redis's thread waited for a core in the middle of a command,
 * so read the shares; Redis CPU per turn (INFO cpu) is the cost, and it also counts reading
 * requests, writing replies and the event loop. SLOWLOG at 0 makes every inner command of a
 * script write a log entry, which lengthens the script.
 */
export function formatRedisProfile(
  variant: string,
  warm: ReadonlyArray<{ stats: CommandStats; turns: number }>,
  profiles: readonly RedisProfile[],
  redisCpuPerTurn: number,
): string {
  const lines: string[] = [];
  const perTurn = commandStatsPerTurn(warm);
  const scriptUsec = (perTurn.fcall?.usec ?? 0) + (perTurn.evalsha?.usec ?? 0);
  lines.push(
    `${variant}: INFO commandstats over the warm phases (${warm.length} runs): ` +
      `scripts (FCALL + EVALSHA) ${fixed(scriptUsec, 1)} µs/turn; Redis CPU (INFO cpu) ${fixed(redisCpuPerTurn, 1)} µs/turn ` +
      '(commands a script runs are counted in fcall or evalsha and again on their own rows)',
  );
  lines.push(
    markdownTable(
      ['command', 'calls per turn', 'µs per turn', 'µs per call'],
      Object.entries(perTurn)
        .sort((a, b) => b[1].usec - a[1].usec)
        .map(([name, { calls, usec }]) => [
          name,
          fixed(calls, 2),
          fixed(usec, 1),
          fixed(usec / Math.max(calls, 1e-9), 1),
        ]),
    ),
  );
  if (profiles.length > 0) {
    const turns = profiles.reduce((sum, profile) => sum + profile.turns, 0);
    const total: RedisProfile['entries'] = {};
    for (const profile of profiles) {
      for (const [name, { calls, usec }] of Object.entries(profile.entries)) {
        tallyInto(total, name, calls, usec);
      }
    }
    const isInner = (name: string) => name.includes(' › ');
    const outer = Object.entries(total).filter(([name]) => !isInner(name));
    const outerUsec = outer.reduce((sum, [, { usec }]) => sum + usec / Math.max(1, turns), 0);
    const full = profiles.some((profile) => profile.full);
    lines.push(
      `\n${variant}: SLOWLOG at 0 over ${profiles.length} profile phases (${turns} turns, not counted in ` +
        `the throughput): ${fixed(outerUsec, 1)} µs/turn in top-level commands${full ? ' (log full: some lost)' : ''}; ` +
        '"≈ Redis CPU" shares out the warm phases\' Redis CPU per turn by that time',
    );
    lines.push(
      markdownTable(
        [
          'script or command',
          'calls per turn',
          'µs per turn (SLOWLOG)',
          'µs per call',
          'share',
          '≈ Redis CPU µs per turn',
        ],
        // Each script, then the commands it ran (by time), then the next script.
        Object.entries(total)
          .sort((a, b) => {
            const [outerA, outerB] = [a[0].split(' › ')[0]!, b[0].split(' › ')[0]!];
            if (outerA !== outerB) return total[outerB]!.usec - total[outerA]!.usec;
            if (isInner(a[0]) !== isInner(b[0])) return isInner(a[0]) ? 1 : -1;
            return b[1].usec - a[1].usec;
          })
          .map(([name, { calls, usec }]) => [
            name,
            fixed(calls / Math.max(1, turns), 2),
            fixed(usec / Math.max(1, turns), 1),
            fixed(usec / Math.max(calls, 1), 1),
            isInner(name)
              ? '(in the script)'
              : `${fixed((100 * usec) / Math.max(1, turns) / Math.max(outerUsec, 1e-9), 0)} %`,
            isInner(name)
              ? ''
              : fixed((usec / Math.max(1, turns) / Math.max(outerUsec, 1e-9)) * redisCpuPerTurn, 0),
          ]),
      ),
    );
  }
  return lines.join('\n');
}
