import type { Redis } from 'ioredis';

/** Calls per command name (lower case), from `INFO commandstats`. */
export type CommandCounts = Record<string, number>;

/**
 * Reads `INFO commandstats`: how many times the server ran each command since it started (or
 * since `CONFIG RESETSTAT`). Commands a script runs are counted under their own names as well
 * as the script's EVALSHA, as Redis counts them.
 */
export async function readCommandCounts(redis: Redis): Promise<CommandCounts> {
  const info = await redis.info('commandstats');
  const counts: CommandCounts = {};
  for (const line of info.split(/\r?\n/)) {
    const match = /^cmdstat_([^:]+):calls=(\d+)/.exec(line);
    if (match) counts[match[1]!] = Number(match[2]);
  }
  return counts;
}

export interface CommandRate {
  /** Commands per second over the window, all names together. */
  perSecond: number;
  /** Calls per command name over the window (only names that ran). */
  byCommand: CommandCounts;
  windowMs: number;
}

/**
 * How many commands the server ran during `windowMs`, from two reads of `INFO commandstats`.
 * The reads' own INFO calls are not counted. The server must not be shared with other clients
 * for the figure to mean anything (a throwaway `redis-server`).
 */
export async function countCommands(redis: Redis, windowMs: number): Promise<CommandRate> {
  const before = await readCommandCounts(redis);
  const started = Date.now();
  await new Promise((resolve) => setTimeout(resolve, windowMs));
  const after = await readCommandCounts(redis);
  const elapsed = Date.now() - started;
  const byCommand: CommandCounts = {};
  let total = 0;
  for (const [name, calls] of Object.entries(after)) {
    // The first read's INFO is counted in `after`: the window holds exactly one of ours.
    const ran = calls - (before[name] ?? 0) - (name === 'info' ? 1 : 0);
    if (ran > 0) {
      byCommand[name] = ran;
      total += ran;
    }
  }
  return { perSecond: (total * 1000) / elapsed, byCommand, windowMs: elapsed };
}
