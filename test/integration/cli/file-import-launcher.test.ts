import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomPrefix, testRedisUrl } from '../../support/redis.ts';
import { waitFor } from '../../support/wait-for.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const botsDir = fileURLToPath(new URL('../../../bots', import.meta.url));

/**
 * bin/replyflow.js runs the commands that stream a whole file (`campaigns create`,
 * `suppressions import`) in a child node whose heap is sized for it (the campaigns bench
 * measures the memory this saves). What a user sees must not change: the child's output and
 * exit code are the command's, and the child never outlives the command, even one killed with
 * SIGKILL.
 */
describe('bin/replyflow.js runs a file import in a child node with a bounded heap', () => {
  let dir: string;
  let env: Record<string, string>;
  const started: ChildProcess[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'replyflow-launcher-'));
    env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      REDIS_URL: testRedisUrl(),
      REPLYFLOW_REDIS_PREFIX: randomPrefix('launcher'),
      REPLYFLOW_PROVIDER_URL: 'http://127.0.0.1:9/v1',
      REPLYFLOW_API_KEY_ID: 'k',
      REPLYFLOW_API_KEY_SECRET: 's',
      REPLYFLOW_LOCATION: 'paris',
      REPLYFLOW_DEFAULT_COUNTRY: 'FR',
      REPLYFLOW_BOTS_DIR: botsDir,
      LOG_LEVEL: 'warn',
    };
  });

  afterAll(() => {
    for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  function run(args: string[], nodeArgs: string[] = []) {
    return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [...nodeArgs, 'bin/replyflow.js', ...args],
        { cwd: root, env },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      );
    });
  }

  it("gives the child's output and exit code as the command's", async () => {
    const file = join(dir, 'people.csv');
    writeFileSync(file, 'phone,lang\n+33612345678,en\n+33612345679,fr\nnot a phone,en\n');

    const dry = await run([
      'campaigns',
      'create',
      'launch',
      '--bot',
      'survey',
      '--file',
      file,
      '--dry-run',
    ]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^Dry run: nothing was stored\./);
    expect(dry.stdout).toMatch(/^rows\s+3$/m);

    const missing = await run([
      'campaigns',
      'create',
      'launch',
      '--bot',
      'survey',
      '--file',
      join(dir, 'nope.csv'),
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('nope.csv');
    expect(missing.stdout).toBe('');
  });

  it('ends the child when the command is killed with SIGKILL', async () => {
    const file = join(dir, 'many.csv');
    const rows = ['phone,lang'];
    for (let i = 0; i < 400_000; i++)
      rows.push(`+336${String(10_000_000 + i).padStart(8, '0')},en`);
    writeFileSync(file, `${rows.join('\n')}\n`);
    const command = spawn(
      process.execPath,
      [
        'bin/replyflow.js',
        'campaigns',
        'create',
        'big',
        '--bot',
        'survey',
        '--file',
        file,
        '--dry-run',
      ],
      { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    started.push(command);
    let stderr = '';
    command.stderr.on('data', (chunk) => {
      stderr += chunk;
    });

    // The child: a node started by the command, with the heap flags.
    const child = await waitFor(
      () =>
        childrenOf(command.pid!).find((pid) => commandLine(pid).includes('--max-semi-space-size=')),
      { timeout: 20_000, message: 'the child node of the import' },
    );
    expect(commandLine(child)).toContain('--max-old-space-size=');
    // It is importing (its progress, or its start-up, is under way) when the command is killed.
    command.kill('SIGKILL');
    await waitFor(() => !existsSync(`/proc/${child}`) || state(child) === 'Z' || undefined, {
      timeout: 10_000,
      message: 'the child node gone with the command',
    });
    expect(stderr).not.toMatch(/Error/);
  });

  it("keeps a user's own heap flags: no child then", async () => {
    const file = join(dir, 'one.csv');
    writeFileSync(file, 'phone,lang\n+33612345678,en\n');
    const command = spawn(
      process.execPath,
      [
        '--max-old-space-size=300',
        'bin/replyflow.js',
        'campaigns',
        'create',
        'own',
        '--bot',
        'survey',
        '--file',
        file,
        '--dry-run',
      ],
      { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    started.push(command);
    const children = new Set<number>();
    const exited = new Promise<number | null>((resolve) => command.on('exit', resolve));
    let done = false;
    void exited.then(() => {
      done = true;
    });
    while (!done) {
      for (const pid of childrenOf(command.pid!))
        if (commandLine(pid).includes('replyflow.js')) children.add(pid);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await exited).toBe(0);
    expect([...children]).toEqual([]);
  });
});

/** The pids whose parent is `pid`, from /proc. */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid …: comm may hold spaces, so read after its closing parenthesis.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // The process ended while /proc was read.
    }
  }
  return children;
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

function state(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}
