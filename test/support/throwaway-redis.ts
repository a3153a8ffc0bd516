import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { freePort } from './free-port.ts';
import { waitForRedis } from './wait-for-redis.ts';

/** True when `redis-server` is on PATH. */
export const hasRedisServer = !spawnSync('redis-server', ['--version']).error;

export interface ThrowawayRedis {
  url: string;
  /** The server's version, once started. */
  version: string;
  /** Starts it (again) on the same port, and waits until it answers. */
  start(): Promise<void>;
  /** Stops it; SIGKILL by default, as a crash would. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Freezes it (SIGSTOP): connections stay open and nothing answers, as a hung server. */
  freeze(): void;
  /** Resumes it after `freeze` (SIGCONT). */
  thaw(): void;
}

/**
 * A `redis-server` of its own, from PATH, on a free port, keeping nothing on disk. The test
 * setup, the Redis-down test and the benchmarks all start theirs here; it can be stopped and
 * started again on the same port.
 */
export async function throwawayRedis(): Promise<ThrowawayRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const handle: ThrowawayRedis = {
    url: `redis://127.0.0.1:${port}`,
    version: 'unknown',
    async start() {
      child = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: 'ignore' },
      );
      handle.version = await waitForRedis(handle.url, 5_000);
    },
    freeze() {
      child?.kill('SIGSTOP');
    },
    thaw() {
      child?.kill('SIGCONT');
    },
    async stop(signal = 'SIGKILL') {
      if (!child || child.exitCode !== null) return;
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill(signal);
      await exited;
      child = undefined;
    },
  };
  await handle.start();
  return handle;
}
