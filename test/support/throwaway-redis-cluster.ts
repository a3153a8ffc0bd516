import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort } from './free-port.ts';
import { waitForRedis } from './wait-for-redis.ts';

const run = promisify(execFile);

export interface ThrowawayRedisCluster {
  /** `127.0.0.1:port` of each master, as REDIS_CLUSTER_NODES lists them. */
  nodes: string[];
  /** Sends `signal` to every node (SIGSTOP: a hung cluster; SIGCONT: it resumes). */
  signal(signal: NodeJS.Signals): void;
  stop(): Promise<void>;
}

/**
 * A real Redis Cluster of `masters` masters and no replica, from the `redis-server` and
 * `redis-cli` binaries on PATH: each node on a free port in a temporary folder of its own
 * (its `nodes.conf`), nothing saved, joined by `redis-cli --cluster create`. Resolves once every
 * node reports `cluster_state:ok` and knows all the masters.
 */
export async function throwawayRedisCluster(masters = 3): Promise<ThrowawayRedisCluster> {
  const children: ChildProcess[] = [];
  const dirs: string[] = [];
  const stop = async () => {
    await Promise.all(
      children.map((child) => {
        if (child.exitCode !== null || child.signalCode !== null) return undefined;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        return exited;
      }),
    );
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  };
  try {
    const ports: number[] = [];
    for (let i = 0; i < masters; i++) {
      // Cluster nodes also listen on port + 10000 (the cluster bus), which must exist; a bus
      // port already taken makes the node fail to start, and the wait below fails.
      let port = await freePort();
      while (port + 10_000 > 65_535) port = await freePort();
      ports.push(port);
    }
    for (const port of ports) {
      const dir = await mkdtemp(join(tmpdir(), 'replyflow-cluster-'));
      dirs.push(dir);
      // A node that could not start (a port taken meanwhile) fails the wait below.
      // biome-ignore format: options and their values read as pairs, a few to a line
      const args = [
        '--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes',
        '--cluster-config-file', join(dir, 'nodes.conf'), '--cluster-node-timeout', '5000',
        '--save', '', '--appendonly', 'no', '--dir', dir,
      ];
      children.push(spawn('redis-server', args, { stdio: 'ignore' }));
    }
    const nodes = ports.map((port) => `127.0.0.1:${port}`);
    await Promise.all(ports.map((port) => waitForRedis(`redis://127.0.0.1:${port}`, 5_000)));
    await run('redis-cli', [
      '--cluster',
      'create',
      ...nodes,
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    await Promise.all(ports.map((port) => waitForClusterOk(port, masters)));
    const signal = (name: NodeJS.Signals) => {
      for (const child of children) child.kill(name);
    };
    return { nodes, signal, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Polls `CLUSTER INFO` until the node says the cluster is ok and sees every master. */
async function waitForClusterOk(port: number, masters: number, timeoutMs = 10_000): Promise<void> {
  const redis = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1 });
  try {
    const deadline = Date.now() + timeoutMs;
    let info = '';
    while (Date.now() < deadline) {
      info = await redis.cluster('INFO');
      if (info.includes('cluster_state:ok') && info.includes(`cluster_size:${masters}`)) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`cluster node on port ${port} is not ok after ${timeoutMs} ms:\n${info}`);
  } finally {
    redis.disconnect();
  }
}
