import { spawn } from 'node:child_process';
import { freePort } from '../../test/support/free-port.ts';
import type { Benchmark } from '../lib/benchmark.ts';
import { median } from '../lib/stats.ts';

/**
 * How long `replyflow emulator` takes from spawn to answering HTTP (issue 2: under 2 s), next to
 * a bare `node -e` that starts an HTTP server, measured in the same run: the baseline is what
 * any Node process pays to start, so the ratio is what replyflow adds (tsx, TypeScript, modules).
 */
async function timeToReady(command: string[], port: number): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, command, { stdio: 'ignore' });
  try {
    for (;;) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/_emulator/messages`);
        await res.arrayBuffer();
        return performance.now() - started;
      } catch {
        // Not listening yet: poll again shortly.
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      if (performance.now() - started > 30_000)
        throw new Error(`${command.join(' ')} did not start in 30 s`);
    }
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

const benchmark: Benchmark = {
  name: 'cli-start',
  description: 'replyflow emulator: spawn to first HTTP answer, against a bare Node HTTP server',
  async run(args) {
    const runs = Number(args[args.indexOf('--runs') + 1]) || 7;
    const emulator: number[] = [];
    const bare: number[] = [];
    for (let i = 0; i < runs; i++) {
      const port = await freePort();
      emulator.push(
        await timeToReady(
          ['bin/replyflow.js', 'emulator', '--port', String(port), '--key-pair', 'k:s:paris'],
          port,
        ),
      );
      const barePort = await freePort();
      bare.push(
        await timeToReady(
          [
            '-e',
            `require('node:http').createServer((q, s) => s.end('[]')).listen(${barePort}, '127.0.0.1')`,
          ],
          barePort,
        ),
      );
    }
    const m = median(emulator);
    const b = median(bare);
    console.log(
      `replyflow emulator ready: median ${m.toFixed(0)} ms (runs: ${emulator.map((t) => t.toFixed(0)).join(', ')})`,
    );
    console.log(`bare node http server ready: median ${b.toFixed(0)} ms`);
    console.log(
      `ratio ${(m / b).toFixed(1)}x; target under 2,000 ms: ${m < 2_000 ? 'met' : 'NOT met'}`,
    );
  },
};

export default benchmark;
