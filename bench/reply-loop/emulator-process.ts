// The emulator, alone in its own process, with a counter of the `POST /v1/sms` it receives.
// Started by `index.ts` (and by bench/footprint); answers `stats`, `pending`, `reset`… over IPC.
// BENCH_REAL_WEBHOOK_TIMING=1 keeps the webhook's answer deadline and retry backoff at the
// service's own durations while the SMS lifecycle runs 100× faster.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolveEmulatorOptions } from '../../src/emulator/emulator-options.ts';
import { createEmulatorApp } from '../../src/emulator/index.ts';
import { serveParent } from '../lib/child.ts';
import { location } from './wiring.ts';

const keyPairs = [{ id: 'bench', secret: 'bench-secret', location }];
// Lifecycle timers (sent, delivered) fire 100× sooner. The reply-loop bench registers no
// webhook, so they notify nobody there: its load generator is the only source of
// notifications. The footprint bench's replyflow registers one (REPLYFLOW_PUBLIC_URL), and a
// 40 ms answer deadline (4 s scaled) would count a busy webhook's slower 2xx as failures and
// retry them many times over.
const timeScale = 0.01;
const service = resolveEmulatorOptions({ keyPairs });
const emulator = createEmulatorApp({
  port: 0,
  keyPairs,
  timeScale,
  rateLimitPerSecond: Number.POSITIVE_INFINITY,
  // The default balance pays for 20,000 SMS; past it every SMS would end errored
  // `insufficient_balance` (one status instead of sent and delivered). A run sends more.
  initialBalance: 1e9,
  ...(process.env.BENCH_REAL_WEBHOOK_TIMING === '1' && {
    webhookRetry: {
      timeoutMs: service.deliveryTimeoutMs / timeScale,
      baseMs: service.retryBaseMs / timeScale,
    },
  }),
});

let count = 0;
let rejected = 0;
let firstAt = 0;
let lastAt = 0;
// Webhook deliveries (status notifications to a registered webhook), by outcome.
const deliveries = { ok: 0, failedAttempts: 0, discarded: 0 };
emulator.context.events.listen((event, data) => {
  if (event !== 'delivery') return;
  const { outcome } = data as { outcome: string };
  if (outcome === 'ok') deliveries.ok++;
  else if (outcome === 'discarded') deliveries.discarded++;
  else deliveries.failedAttempts++;
});

const server = createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/v1/sms') {
    const at = Date.now();
    if (count === 0) firstAt = at;
    lastAt = at;
    count++;
    res.once('finish', () => {
      if (res.statusCode !== 201) rejected++;
    });
  }
  emulator.app(req, res);
});
server.keepAliveTimeout = 60_000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

serveParent(
  {
    /** Arrivals of POST /v1/sms since the last reset, with the first and last arrival times. */
    stats: () => ({ count, rejected, firstAt, lastAt }),
    /**
     * SMS accepted more than once with the same recipient and body since the last full reset.
     * Every notification the bench sends has a unique body, so any repeat is a turn answered
     * twice (a duplicate send), not two turns.
     */
    duplicates: () => {
      const seen = new Set<string>();
      let duplicates = 0;
      for (const sms of emulator.context.messages.list()) {
        const key = `${sms.to} ${sms.body}`;
        if (seen.has(key)) duplicates++;
        else seen.add(key);
      }
      return { duplicates, messages: seen.size + duplicates };
    },
    /**
     * Lifecycle timers and webhook deliveries not yet over (0: every status the emulator owes
     * has been delivered or given up), and the deliveries' outcomes so far.
     */
    pending: () => ({ pending: emulator.context.work.size, deliveries }),
    /** CPU time this process has used, µs. */
    cpu: () => {
      const { user, system } = process.cpuUsage();
      return { micros: user + system };
    },
    /** Zeroes the counters; `full` also empties the emulator (messages, logs, timers). */
    reset: (message) => {
      count = 0;
      rejected = 0;
      firstAt = 0;
      lastAt = 0;
      if (message.full) emulator.context.reset();
      return {};
    },
  },
  async () => {
    await emulator.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  },
);
process.send?.({ type: 'ready', url, baseUrl: `${url}/v1` });
