import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LogCapture } from './log-capture.ts';
import { location, type ReplyLoop, webhookSecret } from './reply-loop.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** Holds the echo bot alone, the bot the tests drive. */
const botsDir = fileURLToPath(new URL('../fixtures/echo-bot-only', import.meta.url));
const maxOutputChars = 200_000;

export interface WorkerProcess {
  readonly pid: number;
  /** Resolves once the process is gone: its exit code, or the signal that ended it. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** True once the test asked it to stop (any signal), so its exit is expected. */
  readonly stopping: boolean;
  /** Conversation steps it ran: its `step` lines, logged before each commit (LOG_LEVEL=debug only). */
  readonly steps: number;
  /** Sends `signal` and resolves when the process is gone. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

/**
 * The environment under which `replyflow worker` in a child process joins a reply loop's
 * Redis (same key prefix) and sends to its emulator, exactly as an operator would configure it.
 */
export function workerEnv(loop: ReplyLoop): Record<string, string> {
  if (!loop.redis) throw new Error('worker processes need the reply loop on the Redis store');
  return {
    PATH: process.env.PATH ?? '',
    ...(loop.redis.clusterNodes
      ? { REDIS_CLUSTER_NODES: loop.redis.clusterNodes.join(',') }
      : { REDIS_URL: loop.redis.url! }),
    REPLYFLOW_REDIS_PREFIX: loop.redis.prefix,
    REPLYFLOW_PROVIDER_URL: loop.emulator.baseUrl,
    REPLYFLOW_API_KEY_ID: 'k',
    REPLYFLOW_API_KEY_SECRET: 's',
    REPLYFLOW_LOCATION: location,
    REPLYFLOW_WEBHOOK_SECRET: webhookSecret,
    REPLYFLOW_BOTS_DIR: botsDir,
    // The emulator has no limit here; the client's default of 10/s would make the test the limit.
    REPLYFLOW_RATE_LIMIT: '100000',
    LOG_LEVEL: 'warn',
  };
}

/**
 * Runs the real CLI, `node bin/replyflow.js worker`, in a child process. Its output is kept in
 * `output` (prefixed with the pid) rather than printed, so a test shows it only when it fails.
 */
export function spawnWorkerProcess(
  env: Record<string, string>,
  output: string[],
  logs?: LogCapture,
): WorkerProcess {
  return spawnReplyflowProcess('worker', env, output, logs);
}

/** Runs `node bin/replyflow.js <command>` in a child process, as `spawnWorkerProcess` does. */
export function spawnReplyflowProcess(
  command: 'worker' | 'web' | 'start',
  env: Record<string, string>,
  output: string[],
  /** Receives every line the process writes, debug ones included. */
  logs?: LogCapture,
): WorkerProcess {
  const child: ChildProcess = spawn(process.execPath, ['bin/replyflow.js', command], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid ?? -1;
  let kept = 0;
  let steps = 0;
  let partial = '';
  const keep = (line: string) => {
    logs?.add(line);
    if (line.includes('"msg":"step"')) steps++;
    // Debug lines are counted or dropped; what a failing test shows is warnings and errors.
    else if (line !== '' && !/^\{"level":[12]0,/.test(line) && kept < maxOutputChars) {
      kept += line.length;
      output.push(`[${command} ${pid}] ${line}`);
    }
  };
  child.stdout?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) keep(line);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) keep(line);
  });
  let stopping = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      output.push(`[${command} ${pid}] exited: code ${code}, signal ${signal}`);
      resolve({ code, signal });
    });
  });
  return {
    pid,
    exited,
    get stopping() {
      return stopping;
    },
    get steps() {
      return steps;
    },
    async kill(signal) {
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/** Stops a worker the way an operator would (SIGTERM: finish the step, release, exit), or SIGKILL after `graceMs`. */
export async function stopWorkerProcess(worker: WorkerProcess, graceMs = 5_000): Promise<void> {
  const timer = setTimeout(() => void worker.kill('SIGKILL'), graceMs);
  await worker.kill('SIGTERM');
  clearTimeout(timer);
}
