import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../support/free-port.ts';
import { replyNotification } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

const stopTimeoutMs = 3_000;

/** `replyflow start` on a REDIS_URL where nothing listens, its output kept line by line. */
async function startWithoutRedis(env: Record<string, string> = {}) {
  const [redisPort, servicePort, port] = await Promise.all([freePort(), freePort(), freePort()]);
  const child = spawn(process.execPath, ['bin/replyflow.js', 'start'], {
    env: {
      PATH: process.env.PATH ?? '',
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      REPLYFLOW_PROVIDER_URL: `http://127.0.0.1:${servicePort}/v1`,
      REPLYFLOW_API_KEY_ID: 'k',
      REPLYFLOW_API_KEY_SECRET: 's',
      REPLYFLOW_WEBHOOK_SECRET: '5f0c8e2b9a4d7163e0b2c5f8a1d4e7b0',
      REPLYFLOW_BOTS_DIR: 'test/fixtures/echo-bot-only',
      REPLYFLOW_STOP_TIMEOUT: `${stopTimeoutMs / 1_000}s`,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await waitFor(
    async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.ok,
    { timeout: 20_000, message: `replyflow start listening (${output})` },
  );
  return {
    child,
    port,
    exited,
    lines: () => output.split('\n').filter((line) => line !== ''),
  };
}

/** Sends SIGTERM and answers how long the process took to exit, or `undefined` past `boundMs`. */
async function stopWithin(run: Awaited<ReturnType<typeof startWithoutRedis>>, boundMs: number) {
  const sentAt = performance.now();
  run.child.kill('SIGTERM');
  const outcome = await Promise.race([run.exited, sleep(boundMs).then(() => undefined)]);
  return outcome && { ...outcome, ms: performance.now() - sentAt };
}

describe('replyflow start when Redis cannot be reached', { timeout: 60_000 }, () => {
  it('says so in one line per connection attempt, backing off, and stops on SIGTERM while still starting', async () => {
    // With a public URL the start registers the webhook, whose rate limiter lives in Redis:
    // it waits there for the store (it used to exit with PROVIDER_RATE_LIMITED).
    const run = await startWithoutRedis({ REPLYFLOW_PUBLIC_URL: 'http://127.0.0.1:9/public' });
    await sleep(4_000);
    const lines = run.lines();
    // Attempts at 0, 0.25, 0.75, 1.75 and 3.75 s: the backoff, not ten lines a second.
    expect(lines.length, lines.join('\n')).toBeGreaterThanOrEqual(2);
    expect(lines.length, lines.join('\n')).toBeLessThanOrEqual(7);
    for (const line of lines) {
      expect(line).toContain('STORE_UNAVAILABLE');
      expect(line).not.toContain('    at ');
      expect(line).not.toContain('PROVIDER_RATE_LIMITED');
    }
    expect(lines[0]).toContain(`check REDIS_URL`);
    // The webhook still answers at once: 503, the service retries.
    const started = performance.now();
    const res = await fetch(
      `http://127.0.0.1:${run.port}/webhooks/default/5f0c8e2b9a4d7163e0b2c5f8a1d4e7b0`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(replyNotification('down-1', '33612345678', 'hello')),
      },
    );
    expect(res.status).toBe(503);
    expect(performance.now() - started).toBeLessThan(1_000);

    const stopped = await stopWithin(run, stopTimeoutMs + 2_000);
    expect(stopped, 'exited within REPLYFLOW_STOP_TIMEOUT and a margin').toMatchObject({
      code: 0,
    });
    expect(run.lines().join('\n')).not.toContain('    at ');
  });

  it('stops on SIGTERM within the stop timeout once started', async () => {
    const run = await startWithoutRedis();
    await sleep(1_500);
    const stopped = await stopWithin(run, stopTimeoutMs + 2_000);
    expect(stopped, 'exited within REPLYFLOW_STOP_TIMEOUT and a margin').toMatchObject({
      code: 0,
    });
    const problems = run.lines().filter((line) => !line.includes('STORE_UNAVAILABLE'));
    expect(problems).toEqual([]);
  });
});
