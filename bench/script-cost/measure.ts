// Loops of one script call on a fixed keyspace: before each call, the keys the call changes are
// put back (one pipeline of RESTORE/DEL, its own round trip); a loop of those restores alone is
// the baseline. Per call: Redis's time inside EVALSHA (INFO commandstats) and Redis's CPU
// (INFO cpu, user + sys, less the baseline's): the second adds what Redis spends outside the
// command for it (reading the request and its arguments, writing the answer, the event loop).
import type { ChainableCommander, Redis } from 'ioredis';
import { type KeyState, loadKeyspace, saveKeyspace } from './capture.ts';

/** One call of a store script as replyflow made it, and the keyspace just before it. */
export interface ScriptCall {
  file: string;
  sha: string;
  /** numkeys, keys, arguments: EVALSHA's arguments after the SHA1. */
  args: Buffer[];
  before: KeyState[];
}

export interface LoopResult {
  /** µs of Redis CPU (INFO cpu) over the loop. */
  cpuUs: number;
  /** EVALSHA's calls and µs (INFO commandstats) over the loop. */
  evalshaCalls: number;
  evalshaUsec: number;
}

/** Redis's CPU time so far, µs (user + sys). */
export async function redisCpu(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const seconds = (field: string) => Number(new RegExp(`${field}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1e6;
}

/** EVALSHA's and FCALL's calls and µs together (a loop runs one or the other). */
async function evalshaStats(redis: Redis): Promise<{ calls: number; usec: number }> {
  const info = await redis.info('commandstats');
  let calls = 0;
  let usec = 0;
  for (const match of info.matchAll(/^cmdstat_(?:evalsha|fcall):calls=(\d+),usec=(\d+)/gm)) {
    calls += Number(match[1]);
    usec += Number(match[2]);
  }
  return { calls, usec };
}

/** A script as a loop calls it: EVALSHA of its SHA1, or FCALL of a loaded function's name. */
export interface ScriptRef {
  command: 'evalsha' | 'fcall';
  id: string;
}

/** The script of SHA1 `sha`, called by EVALSHA. */
export const evalsha = (sha: string): ScriptRef => ({ command: 'evalsha', id: sha });

/** What puts back, in one pipeline, the keys a call changed. */
export type Restore = (pipeline: ChainableCommander) => void;

/**
 * Runs the call once from its keyspace, and answers how to undo it: RESTORE the keys it changed
 * or deleted, DEL the ones it made. Also answers its reply, to check that an undone call
 * answers the same the next time.
 */
export async function restoreFor(
  redis: Redis,
  call: ScriptCall,
): Promise<{ restore: Restore; reply: string; changed: number }> {
  await loadKeyspace(redis, call.before);
  const reply = JSON.stringify(await redis.callBuffer('evalsha', call.sha, ...call.args));
  const after = await saveKeyspace(redis);
  const hex = (key: Buffer) => key.toString('hex');
  const beforeByKey = new Map(call.before.map((state) => [hex(state.key), state]));
  const afterByKey = new Map(after.map((state) => [hex(state.key), state]));
  const restores = call.before.filter((state) => {
    const now = afterByKey.get(hex(state.key));
    return !now?.dump.equals(state.dump);
  });
  const deletes = after.filter((state) => !beforeByKey.has(hex(state.key))).map((s) => s.key);
  const restore: Restore = (pipeline) => {
    for (const { key, dump, pttl } of restores) pipeline.restore(key, pttl, dump, 'REPLACE');
    if (deletes.length > 0) pipeline.del(...deletes);
  };
  // Undone, the call must find the same keyspace: same reply.
  await loadKeyspace(redis, call.before);
  const pipeline = redis.pipeline();
  restore(pipeline);
  await pipeline.exec();
  const again = JSON.stringify(await redis.callBuffer('evalsha', call.sha, ...call.args));
  if (again !== reply) throw new Error(`${call.file}: the call answers differently once undone`);
  return { restore, reply, changed: restores.length + deletes.length };
}

/** `iterations` × (restore; call `script`), or the restores alone when `script` is undefined. */
export async function loop(
  redis: Redis,
  restore: Restore | undefined,
  script: ScriptRef | undefined,
  args: readonly Buffer[],
  iterations: number,
): Promise<LoopResult> {
  await redis.config('RESETSTAT');
  const cpuBefore = await redisCpu(redis);
  for (let i = 0; i < iterations; i++) {
    if (restore) {
      const pipeline = redis.pipeline();
      restore(pipeline);
      await pipeline.exec();
    }
    if (script) await redis.callBuffer(script.command, script.id, ...args);
  }
  const cpuAfter = await redisCpu(redis);
  const stats = await evalshaStats(redis);
  return { cpuUs: cpuAfter - cpuBefore, evalshaCalls: stats.calls, evalshaUsec: stats.usec };
}

/** `iterations` of one plain command (PING…), no restore: Redis CPU per call, µs. */
export async function commandLoop(
  redis: Redis,
  command: string,
  args: readonly (string | Buffer)[],
  iterations: number,
): Promise<{ cpuPerCall: number; usecPerCall: number }> {
  await redis.config('RESETSTAT');
  const cpuBefore = await redisCpu(redis);
  for (let i = 0; i < iterations; i++) await redis.callBuffer(command, ...args);
  const cpuAfter = await redisCpu(redis);
  const info = await redis.info('commandstats');
  const match = new RegExp(`^cmdstat_${command}:calls=(\\d+),usec=(\\d+)`, 'm').exec(info);
  return {
    cpuPerCall: (cpuAfter - cpuBefore) / iterations,
    usecPerCall: Number(match?.[2] ?? 0) / Math.max(1, Number(match?.[1] ?? 0)),
  };
}
