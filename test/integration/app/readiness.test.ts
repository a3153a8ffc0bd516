import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApp } from '../../../src/app/create-http-app.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { createMetrics } from '../../../src/observability/metrics.ts';
import { systemClock } from '../../../src/scheduler/clock.ts';
import { createMemoryStore } from '../../../src/store/memory/create-memory-store.ts';
import echo from '../../fixtures/bots/echo-bot.ts';
import { freePort } from '../../support/free-port.ts';
import {
  location,
  type ReplyLoop,
  startReplyLoop,
  webhookSecret,
} from '../../support/reply-loop.ts';
import { type ThrowawayRedis, throwawayRedis } from '../../support/throwaway-redis.ts';
import { waitFor } from '../../support/wait-for.ts';
import {
  spawnReplyflowProcess,
  stopWorkerProcess,
  type WorkerProcess,
  workerEnv,
} from '../../support/worker-process.ts';

const registry = createBotRegistry([{ bot: echo, file: 'echo-bot.ts' }]);

async function get(url: string): Promise<{ status: number; body: unknown; ms: number }> {
  const startedAt = Date.now();
  const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  return { status: res.status, body: await res.json(), ms: Date.now() - startedAt };
}

describe('/healthz and /readyz on a Redis that freezes', () => {
  let redis: ThrowawayRedis;
  let loop: ReplyLoop;
  beforeAll(async () => {
    redis = await throwawayRedis();
    loop = await startReplyLoop({ registry, redisUrl: redis.url, webhook: false });
  });
  afterAll(async () => {
    redis?.thaw();
    await loop?.close();
    await redis?.stop();
  });

  it('/readyz goes 503 within 2 s of Redis freezing and back to 200 after it resumes; /healthz stays 200', async () => {
    expect(await get(`${loop.app.url}/readyz`)).toMatchObject({
      status: 200,
      body: { ready: true },
    });
    redis.freeze();
    const frozenAt = Date.now();
    const notReady = await waitFor(
      async () => {
        const answer = await get(`${loop.app.url}/readyz`);
        return answer.status === 503 && answer;
      },
      { timeout: 4_000, interval: 50, message: '/readyz answers 503' },
    );
    expect(Date.now() - frozenAt).toBeLessThan(2_000);
    expect(notReady.body).toEqual({
      ready: false,
      reason: 'store did not answer a ping within 1000 ms',
    });
    // Liveness does not depend on Redis: it answers, and at once.
    for (let i = 0; i < 3; i++) {
      const health = await get(`${loop.app.url}/healthz`);
      expect(health).toMatchObject({ status: 200, body: { ok: true } });
      expect(health.ms).toBeLessThan(500);
    }
    redis.thaw();
    await waitFor(async () => (await get(`${loop.app.url}/readyz`)).status === 200, {
      timeout: 5_000,
      interval: 50,
      message: '/readyz back to 200',
    });
    expect((await get(`${loop.app.url}/healthz`)).status).toBe(200);
  });
});

describe('/readyz reasons', () => {
  it('answers 503 with the reason while stopping, and the webhook 503 so the service retries', async () => {
    const store = createMemoryStore({});
    const options = {
      store,
      clock: systemClock,
      logger: pino({ level: 'silent' }),
      secrets: new Map([[location, webhookSecret]]),
    };
    let draining = false;
    const app = createHttpApp({
      ...options,
      ops: {
        store,
        registry,
        draining: () => draining,
        metrics: createMetrics(),
        adminToken: undefined,
      },
      gate: { draining: () => draining, maxInflight: 8 },
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      expect((await get(`${base}/readyz`)).status).toBe(200);
      draining = true;
      expect(await get(`${base}/readyz`)).toMatchObject({
        status: 503,
        body: { ready: false, reason: 'stopping: finishing work in flight' },
      });
      const res = await fetch(`${base}/webhooks/${location}/${webhookSecret}`, {
        method: 'POST',
        body: JSON.stringify({ id: 'n-1', type: 'sms.status', data: [] }),
      });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(await res.json()).toMatchObject({ message: 'stopping: retry later' });
      expect(await store.listDeadLetters()).toEqual([]);
      expect((await get(`${base}/healthz`)).status).toBe(200);
    } finally {
      server.close();
    }
  });

  it('answers 503 when no bot is loaded', async () => {
    const store = createMemoryStore({});
    const app = createHttpApp({
      store,
      clock: systemClock,
      logger: pino({ level: 'silent' }),
      secrets: new Map(),
      ops: {
        store,
        registry: createBotRegistry([]),
        draining: () => false,
        metrics: createMetrics(),
        adminToken: undefined,
      },
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      expect(await get(`http://127.0.0.1:${port}/readyz`)).toMatchObject({
        status: 503,
        body: { ready: false, reason: 'no bot is loaded (check REPLYFLOW_BOTS_DIR)' },
      });
    } finally {
      server.close();
    }
  });
});

describe('every role serves /healthz, /readyz and /metrics', () => {
  let loop: ReplyLoop;
  const processes: WorkerProcess[] = [];
  const output: string[] = [];
  beforeAll(async () => {
    loop = await startReplyLoop({ registry, webhook: false });
  });
  afterAll(async () => {
    await Promise.all(processes.map((p) => stopWorkerProcess(p)));
    await loop?.close();
  });

  it('`replyflow worker` on REPLYFLOW_HEALTH_PORT, `replyflow web` on PORT', async () => {
    const [healthPort, webPort] = [await freePort(), await freePort()];
    const env = workerEnv(loop);
    processes.push(
      spawnReplyflowProcess(
        'worker',
        { ...env, REPLYFLOW_HEALTH_PORT: String(healthPort) },
        output,
      ),
      spawnReplyflowProcess('web', { ...env, PORT: String(webPort) }, output),
    );
    for (const port of [healthPort, webPort]) {
      const base = `http://127.0.0.1:${port}`;
      await waitFor(
        async () => (await get(`${base}/readyz`).catch(() => undefined))?.status === 200,
        {
          timeout: 20_000,
          interval: 100,
          message: `/readyz on ${port} (${output.join('\n')})`,
        },
      );
      expect((await get(`${base}/healthz`)).status).toBe(200);
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toContain('replyflow_sends_total{result="sent"}');
      expect(metrics).toContain('process_cpu_user_seconds_total');
    }
    // The worker serves no webhook there.
    const hook = await fetch(
      `http://127.0.0.1:${healthPort}/webhooks/${location}/${webhookSecret}`,
      {
        method: 'POST',
        body: '{}',
      },
    );
    expect(hook.status).toBe(404);
    for (const process of processes.splice(0)) {
      await process.kill('SIGTERM');
      expect(await process.exited).toEqual({ code: 0, signal: null });
    }
  }, 60_000);
});
