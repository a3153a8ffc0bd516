#!/usr/bin/env node
// The published entry: registers tsx so the CLI, and the bots it loads, run as TypeScript.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// The commands that stream a whole file through one process run in a child node with a small
// young generation and a ceiling on the old one: with V8's defaults a million-row import grows
// the young generation to 32 MiB and keeps about 110 MiB of garbage in the old one, because
// nothing tells V8 that memory is wanted back (docs/benchmarks.md, "Campaigns"). Flags that
// size the heap must be given when node starts, hence the child. A user's own heap flags (on
// the command line or in NODE_OPTIONS) win: then nothing is relaunched.
const streamsAFile = [
  ['campaigns', 'create'],
  ['suppressions', 'import'],
].some(([command, sub]) => process.argv[2] === command && process.argv[3] === sub);
const heapFlags = ['--max-semi-space-size=1', '--max-old-space-size=128'];
const heapGiven = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some(
  (flag) => /^--max-(semi|old)-space-size\b/.test(flag),
);

if (streamsAFile && !heapGiven) {
  const child = spawn(
    process.execPath,
    [...heapFlags, ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    { stdio: 'inherit', env: { ...process.env, REPLYFLOW_LAUNCHER_PID: String(process.pid) } },
  );
  // A signal sent to this process is passed on; the child's end is this process's end.
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  const forward = (signal) => child.kill(signal);
  for (const signal of signals) process.on(signal, forward);
  child.on('error', (error) => {
    console.error(`replyflow: cannot start node for this command: ${error.message}`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    for (const each of signals) process.off(each, forward);
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
} else {
  // Launched by the branch above: this process ends with its launcher, even one killed with
  // SIGKILL, rather than go on importing unseen. Its parent changes when the launcher dies (an
  // IPC channel would say so too, but a child whose channel closes while node starts spins).
  const launcher = Number(process.env.REPLYFLOW_LAUNCHER_PID);
  if (launcher > 0) {
    delete process.env.REPLYFLOW_LAUNCHER_PID;
    const orphaned = () => {
      if (process.ppid !== launcher) process.kill(process.pid, 'SIGKILL');
    };
    orphaned();
    setInterval(orphaned, 250).unref();
  }
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
