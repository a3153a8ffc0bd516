import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from './free-port.ts';
import { waitFor } from './wait-for.ts';

/** True when `redis-server` is on PATH (tests that stop and restart a Redis need their own). */
export const hasRedisServer = !spawnSync('redis-server', ['--version']).error;

/** A redis-server of the test's own, on a fixed free port, that can be stopped and started again. */
export async function throwawayRedis() {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const url = `redis://127.0.0.1:${port}`;
  const ping = async () => {
    const probe = new Redis(url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    probe.on('error', () => {});
    try {
      await probe.connect();
      return (await probe.ping()) === 'PONG';
    } finally {
      probe.disconnect();
    }
  };
  const handle = {
    url,
    async start() {
      child = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: 'ignore' },
      );
      await waitFor(ping, { timeout: 5_000, message: `redis-server on ${port}` });
    },
    async stop() {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child?.kill('SIGKILL');
      await exited;
      child = undefined;
    },
  };
  await handle.start();
  return handle;
}
