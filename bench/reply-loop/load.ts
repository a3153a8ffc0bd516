import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import autocannon, { type Result as AutocannonResult } from 'autocannon';
import { Pool } from 'undici';
import { percentile } from '../lib/stats.ts';

/** Makes the body of the next notification: each call must give a new notification id. */
export type NextBody = () => string;

export interface LoadResult {
  /** Notifications sent and answered 2xx. */
  ok: number;
  /** Answers other than 2xx, and requests that failed or timed out. */
  failed: number;
  /** Wall time from the first request to the last answer, ms. */
  elapsedMs: number;
  /** Ack latency percentiles, ms, computed from every raw sample. */
  p50: number;
  p99: number;
  max: number;
}

const headers = { 'content-type': 'application/json' };

/**
 * autocannon against the webhook, each request with a fresh body from `next` (its
 * `setupRequest` hook). `amount` bounds the run by count, `durationS` by time; `overallRate`
 * caps the rate. Latencies are autocannon's raw per-response times (request written → answer
 * read), not its histogram: with a rate set, autocannon "corrects" that histogram for
 * coordinated omission assuming a 1 ms interval, which adds made-up samples.
 */
export async function runAutocannon(options: {
  url: string;
  connections: number;
  next: NextBody;
  amount?: number;
  durationS?: number;
  overallRate?: number;
}): Promise<LoadResult & { raw: AutocannonResult }> {
  const samples: number[] = [];
  let ok = 0;
  const started = performance.now();
  let lastAnswer = started;
  const instance = autocannon({
    url: options.url,
    method: 'POST',
    headers,
    connections: options.connections,
    ...(options.amount ? { amount: options.amount } : { duration: options.durationS ?? 10 }),
    ...(options.overallRate ? { overallRate: options.overallRate } : {}),
    timeout: 30,
    requests: [
      {
        setupRequest: (request) => ({ ...request, body: options.next() }),
      },
    ],
  });
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    lastAnswer = performance.now();
    if (status >= 200 && status < 300) {
      ok++;
      samples.push(ms);
    }
  });
  const raw = await instance;
  // autocannon resolves on its next 1 s tick; the last answer is when the load really ended.
  const elapsedMs = lastAnswer - started;
  return {
    ok,
    failed: raw.errors + raw.non2xx,
    elapsedMs,
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
    max: percentile(samples, 100),
    raw,
  };
}

/**
 * A closed-loop driver on an undici `Pool`: `connections` requests in flight, each connection
 * sending its next notification as soon as the previous one is answered, until `amount` have
 * been answered. It replaced autocannon for the turn phases (issue 26): it costs the runner
 * less CPU per request than autocannon (and far less than a `fetch`-based driver, which used
 * more CPU than the servers it drove and capped both at the same figure), and the load
 * generator shares the machine's two cores with what it measures. Latencies are request
 * written → answer read, per request.
 */
export async function runPool(options: {
  /** One server, or several behind a round robin: connection i goes to server i mod n. */
  url: string | readonly string[];
  connections: number;
  amount: number;
  next: NextBody;
}): Promise<LoadResult> {
  const urls = typeof options.url === 'string' ? [options.url] : options.url;
  const targets = urls.map((url) => new URL(url));
  const pools = targets.map(
    (target, i) =>
      new Pool(target.origin, {
        connections: Math.ceil((options.connections - i) / targets.length),
        pipelining: 1,
        keepAliveTimeout: 60_000,
      }),
  );
  const samples: number[] = [];
  let ok = 0;
  let failed = 0;
  let issued = 0;
  const started = performance.now();
  let lastAnswer = started;
  const loop = async (_: unknown, connection: number) => {
    const pool = pools[connection % pools.length]!;
    const target = targets[connection % targets.length]!;
    while (issued < options.amount) {
      issued++;
      const sentAt = performance.now();
      try {
        const response = await pool.request({
          path: target.pathname,
          method: 'POST',
          headers,
          body: options.next(),
          headersTimeout: 30_000,
          bodyTimeout: 30_000,
        });
        await response.body.dump();
        lastAnswer = performance.now();
        if (response.statusCode >= 200 && response.statusCode < 300) {
          ok++;
          samples.push(lastAnswer - sentAt);
        } else failed++;
      } catch {
        lastAnswer = performance.now();
        failed++;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: options.connections }, loop));
  } finally {
    await Promise.all(pools.map((pool) => pool.close()));
  }
  return {
    ok,
    failed,
    elapsedMs: lastAnswer - started,
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
    max: percentile(samples, 100),
  };
}

/**
 * An open-loop generator: sends `rate` notifications per second on a fixed schedule, whatever
 * the server's answers do, and measures each ack from the moment the schedule said to send it
 * (so a stalled server is charged for the requests it delayed: no coordinated omission). Sends
 * happen on 1 ms timer ticks, which adds up to about 1 ms to each sample.
 */
export async function runPaced(options: {
  /** One server, or several behind a round robin: the i-th request goes to server i mod n. */
  url: string | readonly string[];
  rate: number;
  durationMs: number;
  next: NextBody;
  /** Most connections opened (to each server); a request waits for a free one beyond that. */
  connections?: number;
}): Promise<LoadResult> {
  const urls = typeof options.url === 'string' ? [options.url] : options.url;
  const targets = urls.map((url) => new URL(url));
  const pools = targets.map(
    (target) =>
      new Pool(target.origin, {
        connections: options.connections ?? 256,
        pipelining: 1,
        keepAliveTimeout: 60_000,
      }),
  );
  const total = Math.round((options.rate * options.durationMs) / 1000);
  const interval = 1000 / options.rate;
  const samples: number[] = [];
  let ok = 0;
  let failed = 0;
  const inFlight: Promise<void>[] = [];
  const send = (intendedAt: number, i: number) =>
    pools[i % pools.length]!.request({
      path: targets[i % targets.length]!.pathname,
      method: 'POST',
      headers,
      body: options.next(),
    })
      .then(async (response) => {
        await response.body.dump();
        if (response.statusCode >= 200 && response.statusCode < 300) {
          ok++;
          samples.push(performance.now() - intendedAt);
        } else failed++;
      })
      .catch(() => {
        failed++;
      });
  const started = performance.now();
  let sent = 0;
  while (sent < total) {
    const now = performance.now();
    while (sent < total && started + sent * interval <= now) {
      inFlight.push(send(started + sent * interval, sent));
      sent++;
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(inFlight);
  const elapsedMs = performance.now() - started;
  await Promise.all(pools.map((pool) => pool.close()));
  return {
    ok,
    failed,
    elapsedMs,
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
    max: percentile(samples, 100),
  };
}

/**
 * A round robin in front of several servers, as a load balancer: each POST goes to the next of
 * `urls` (the same path on each), headers and body as they came, and its answer's status and
 * body go back. For the service's status notifications with `--processes` (the emulator posts
 * each to every webhook registered, so one address must stand for them all). Its CPU is the
 * load generator's.
 */
export async function startRoundRobin(
  urls: readonly string[],
): Promise<{ url: string; close: () => Promise<void> }> {
  const targets = urls.map((url) => new URL(url));
  const pools = targets.map((target) => new Pool(target.origin, { keepAliveTimeout: 60_000 }));
  let next = 0;
  const server = createServer((request, response) => {
    const i = next++ % targets.length;
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === 'string' && name !== 'host' && name !== 'connection') {
          headers[name] = value;
        }
      }
      pools[i]!.request({
        path: targets[i]!.pathname,
        method: 'POST',
        headers,
        body: Buffer.concat(chunks),
      }).then(
        async (answer) => {
          const body = await answer.body.text();
          response.writeHead(answer.statusCode, { 'content-type': 'application/json' });
          response.end(body);
        },
        () => {
          response.writeHead(502);
          response.end();
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${targets[0]!.pathname}`,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all(pools.map((pool) => pool.close()));
    },
  };
}
