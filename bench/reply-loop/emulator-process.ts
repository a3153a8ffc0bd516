// The emulator, alone in its own process, with a counter of the `POST /v1/sms` it receives.
// Started by `index.ts`; answers `stats` and `reset` over IPC.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEmulatorApp } from '../../src/emulator/index.ts';
import { serveParent } from '../lib/child.ts';
import { location } from './wiring.ts';

const emulator = createEmulatorApp({
  port: 0,
  keyPairs: [{ id: 'bench', secret: 'bench-secret', location }],
  // Lifecycle timers (sent, delivered) fire 100× sooner; no webhook is registered, so they
  // notify nobody: the load generator is the only source of notifications.
  timeScale: 0.01,
  rateLimitPerSecond: Number.POSITIVE_INFINITY,
});

let count = 0;
let rejected = 0;
let firstAt = 0;
let lastAt = 0;

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
