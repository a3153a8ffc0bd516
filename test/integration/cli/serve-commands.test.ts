import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { resolve } from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/app/config.ts';
import { startDev } from '../../../src/app/start-dev.ts';
import { startEmulator } from '../../../src/emulator/index.ts';
import { freePort } from '../../support/free-port.ts';
import { randomPrefix, testRedisUrl } from '../../support/redis.ts';
import { requestWithHost } from '../../support/request-with-host.ts';
import { waitFor } from '../../support/wait-for.ts';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

function replyflow(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['bin/replyflow.js', ...args], {
    env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (d) => (output.stdout += d));
  child.stderr.on('data', (d) => (output.stderr += d));
  const exited = new Promise<number | null>((done) => child.once('exit', done));
  return { child, output, exited };
}

/** Whether a TCP connection to host:port is accepted. */
function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ host, port, timeout: 2_000 });
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
    socket.once('timeout', () => {
      socket.destroy();
      done(false);
    });
  });
}

const otherAddress = Object.values(networkInterfaces())
  .flat()
  .find((entry) => entry && entry.family === 'IPv4' && !entry.internal)?.address;

describe('replyflow --version and --help', { timeout: 90_000 }, () => {
  it('prints the version of package.json', async () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    const run = replyflow(['--version']);
    expect(await run.exited).toBe(0);
    expect(run.output.stdout.trim()).toBe(version);
  });

  it('gives every command its own help, with each default shown once', {
    timeout: 90_000,
  }, async () => {
    const top = replyflow(['--help']);
    expect(await top.exited).toBe(0);
    const commands = [...top.output.stdout.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)]
      .map((m) => m[1]!)
      .filter((name) => name !== 'help');
    expect(commands).toEqual(expect.arrayContaining(['start', 'dev', 'emulator', 'chat']));
    const helps = await Promise.all(
      commands.map(async (command) => {
        const run = replyflow([command, '--help']);
        return { command, code: await run.exited, text: run.output.stdout };
      }),
    );
    for (const { command, code, text } of helps) {
      expect(code).toBe(0);
      expect(text).toMatch(new RegExp(`^Usage: replyflow ${command}\\b`));
      // One option per block (a line starting with two spaces and a dash, then its continuation).
      const blocks = text.split(/\n(?= {2}-)/);
      for (const block of blocks)
        expect(block.match(/\(default[: ]/g)?.length ?? 0).toBeLessThan(2);
    }
    // The helps above hold emulator's and dev's: no need to start node twice more for them.
    const helpOf = (command: string) => helps.find((help) => help.command === command)?.text;
    const emulator = helpOf('emulator');
    expect(emulator).toContain('(default: dev:dev:default)');
    expect(emulator).not.toContain('[]');
    const dev = helpOf('dev');
    expect(dev).toMatch(/--port <n>/);
    expect(dev).toMatch(/--host <host>[\s\S]*default:\s+"127\.0\.0\.1"/);
  });

  it('says a command does not exist, even with --help, and exits 1', async () => {
    const run = replyflow(['no-such-command', '--help']);
    expect(await run.exited).toBe(1);
    expect(run.output.stderr).toContain("unknown command 'no-such-command'");
  });
});

describe('replyflow dev on the network', { timeout: 90_000 }, () => {
  it('cannot be reached on a non-loopback address of this machine', async (context) => {
    if (!otherAddress) {
      context.skip('this machine has no non-loopback IPv4 address to connect to');
      return;
    }
    // The address is reachable from here: a server listening on every interface answers on it.
    const open: Server = createServer();
    await new Promise<void>((done) => open.listen(0, '0.0.0.0', done));
    const openPort = (open.address() as { port: number }).port;
    expect(await reachable(otherAddress, openPort)).toBe(true);
    open.close();

    // `replyflow dev` as a newcomer runs it: no --host.
    const port = await freePort();
    const run = replyflow(['dev', '--port', String(port)], {
      REPLYFLOW_BOTS_DIR: 'test/fixtures/echo-bot-only',
    });
    await waitFor(() => run.output.stdout.includes('dev phone:'), {
      timeout: 60_000,
      message: `dev up (${run.output.stderr})`,
    });
    expect(await reachable('127.0.0.1', port)).toBe(true);
    expect(await reachable(otherAddress, port)).toBe(false);
    run.child.kill('SIGTERM');
    await run.exited;
    // And startDev, as the library gives it, defaults to loopback too.
    const config = await loadConfig({
      PORT: '0',
      REPLYFLOW_BOTS_DIR: resolve('test/fixtures/echo-bot-only'),
      LOG_LEVEL: 'silent',
    });
    const dev = await startDev(config, pino({ level: 'silent' }), { watch: false });
    try {
      const devPort = Number(new URL(dev.url).port);
      expect(await reachable('127.0.0.1', devPort)).toBe(true);
      expect(await reachable(otherAddress, devPort)).toBe(false);
    } finally {
      await dev.close();
    }
  });

  it('a second dev on a busy port exits 1 with one line saying what to do', async () => {
    const port = await freePort();
    const env = { PORT: String(port), REPLYFLOW_BOTS_DIR: 'test/fixtures/echo-bot-only' };
    const first = replyflow(['dev'], env);
    await waitFor(() => first.output.stdout.includes('dev phone:'), {
      timeout: 60_000,
      message: `the first dev up (${first.output.stderr})`,
    });
    // The second by PORT and the third by --port at the same time: both find the port taken.
    const second = replyflow(['dev'], env);
    const flag = replyflow(['dev', '--port', String(port)], {
      REPLYFLOW_BOTS_DIR: env.REPLYFLOW_BOTS_DIR,
    });
    expect(await second.exited).toBe(1);
    expect(second.output.stderr).toBe(
      `replyflow dev: CONFIG_INVALID: port ${port} is in use: set PORT or --port\n`,
    );
    expect(await flag.exited).toBe(1);
    expect(flag.output.stderr).toContain(`port ${port} is in use: set PORT or --port`);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
  });

  it('answers only loopback Host headers, and the names given with --allow-host', async () => {
    const port = await freePort();
    const run = replyflow(
      ['dev', '--port', String(port), '--allow-host', 'devbox.test', '--allow-host', 'b.test'],
      { REPLYFLOW_BOTS_DIR: 'test/fixtures/echo-bot-only' },
    );
    await waitFor(() => run.output.stdout.includes('dev phone:'), {
      timeout: 60_000,
      message: `dev up (${run.output.stderr})`,
    });
    const state = `http://127.0.0.1:${port}/dev/state`;
    for (const [host, status] of [
      [`localhost:${port}`, 200],
      [`devbox.test:${port}`, 200],
      ['b.test', 200],
      [`evil.example:${port}`, 403],
    ] as const) {
      expect((await requestWithHost(state, host)).status, host).toBe(status);
    }
    run.child.kill('SIGTERM');
    await run.exited;
  });

  it('--host beyond loopback listens there, with a warning', async (context) => {
    if (!otherAddress) {
      context.skip('this machine has no non-loopback IPv4 address');
      return;
    }
    const port = await freePort();
    const run = replyflow(['dev', '--host', '0.0.0.0', '--port', String(port)], {
      REPLYFLOW_BOTS_DIR: 'test/fixtures/echo-bot-only',
    });
    await waitFor(() => run.output.stdout.includes('dev phone:'), { timeout: 60_000 });
    expect(run.output.stdout).toMatch(/WARN.*dev is listening beyond this machine/);
    expect(await reachable(otherAddress, port)).toBe(true);
    run.child.kill('SIGTERM');
    await run.exited;
  });
});

describe('start and web never serve the dev routes', { timeout: 90_000 }, () => {
  it('answer 404 on /dev and /_emulator, where dev answers', async () => {
    const emulator = await startEmulator({
      port: 0,
      keyPairs: [{ id: 'k', secret: 's', location: 'paris' }],
    });
    const env = {
      REPLYFLOW_PROVIDER_URL: emulator.baseUrl,
      REPLYFLOW_API_KEY_ID: 'k',
      REPLYFLOW_API_KEY_SECRET: 's',
      REPLYFLOW_LOCATION: 'paris',
      REPLYFLOW_WEBHOOK_SECRET: 'serve-test-secret-0123',
      REPLYFLOW_BOTS_DIR: 'test/fixtures/echo-bot-only',
      REDIS_URL: testRedisUrl(),
      REPLYFLOW_REDIS_PREFIX: randomPrefix('serve'),
    };
    try {
      // The three at once, each on its own port: most of each one's time is its start.
      const ports = new Set<number>();
      while (ports.size < 3) ports.add(await freePort());
      const statusesOf = async (mode: string, port: number) => {
        const run = replyflow([mode], { ...env, PORT: String(port) });
        const base = `http://127.0.0.1:${port}`;
        try {
          await waitFor(async () => (await fetch(`${base}/healthz`)).ok, {
            timeout: 30_000,
            message: `replyflow ${mode} up (${run.output.stderr})`,
          });
          return await Promise.all(
            ['/dev', '/dev/bots', '/_emulator/messages', '/v1/webhooks'].map(
              async (path) => (await fetch(`${base}${path}`)).status,
            ),
          );
        } finally {
          run.child.kill('SIGTERM');
          await run.exited;
        }
      };
      const [start, web, dev] = await Promise.all(
        ['start', 'web', 'dev'].map((mode, i) => statusesOf(mode, [...ports][i]!)),
      );
      expect(start).toEqual([404, 404, 404, 404]);
      expect(web).toEqual([404, 404, 404, 404]);
      expect(dev!.slice(0, 2)).toEqual([200, 200]);
    } finally {
      await emulator.close();
    }
  });
});
