import { type IncomingMessage, request, type Server } from 'node:http';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createAdminRouter } from '../../../src/admin/create-admin-router.ts';
import type { LocationConfig } from '../../../src/app/config.ts';
import {
  allowLongBody,
  createHardenedServer,
  httpLimits,
} from '../../../src/app/create-hardened-server.ts';
import { createHttpApp } from '../../../src/app/create-http-app.ts';
import { listenOn } from '../../../src/app/listen-on.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { systemClock } from '../../../src/scheduler/clock.ts';
import { createMemoryStore } from '../../../src/store/memory/create-memory-store.ts';
import echo from '../../fixtures/bots/echo-bot.ts';

/** The production limits with a 1 s request timeout, so that a trickle outlasts it quickly. */
const limits = {
  ...httpLimits,
  headersTimeoutMs: 1_000,
  requestTimeoutMs: 1_000,
  checkIntervalMs: 200,
};
const token = 'admin-6a1f0e2d9c8b7a6f5e4d3c2b1a0f9e8d';

let server: Server | undefined;
afterEach(async () => {
  const done = server;
  server = undefined;
  if (!done) return;
  done.closeAllConnections();
  await new Promise((resolve) => done.close(resolve));
});

/** What came of a request: its status and body, or `closed` when the socket was cut first. */
type Outcome = { status: number; body: string } | { closed: true };

/**
 * Sends `chunks` `everyMs` apart (chunked), then ends the request unless `stall`: the slow
 * client the request timeout is there for.
 */
function trickle(
  base: string,
  path: string,
  chunks: string[],
  options: { everyMs: number; headers?: Record<string, string>; stall?: boolean },
): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = request(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv', ...options.headers },
    });
    req.on('response', (res: IncomingMessage) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', () => resolve({ closed: true }));
    });
    req.on('error', () => resolve({ closed: true }));
    let i = 0;
    const next = () => {
      if (req.destroyed) return;
      if (i < chunks.length) {
        req.write(chunks[i++]);
        setTimeout(next, options.everyMs);
      } else if (!options.stall) req.end();
    };
    next();
  });
}

describe('a long body an admin route allows (allowLongBody)', () => {
  it('outlasts the request timeout, while any other slow request still gets 408', async () => {
    server = createHardenedServer(async (req, res) => {
      if (req.url === '/long') allowLongBody(req);
      let bytes = 0;
      try {
        for await (const chunk of req) bytes += (chunk as Buffer).length;
      } catch {
        return; // cut: the client is told by the socket
      }
      res.end(String(bytes));
    }, limits);
    const base = await listenOn(server, 0, '127.0.0.1');
    const chunks = Array.from({ length: 10 }, () => 'x'.repeat(100));
    const [long, other] = await Promise.all([
      trickle(base, '/long', chunks, { everyMs: 250 }),
      trickle(base, '/other', chunks, { everyMs: 250 }),
    ]);
    expect(long).toEqual({ status: 200, body: '1000' });
    expect(other).toMatchObject({ status: 408 });
  });

  it('is still cut when it stalls for its idle time', async () => {
    server = createHardenedServer(async (req, res) => {
      allowLongBody(req, 500);
      try {
        for await (const _ of req);
      } catch {
        return; // cut: the client is told by the socket
      }
      res.end('done');
    }, limits);
    const base = await listenOn(server, 0, '127.0.0.1');
    const started = Date.now();
    const outcome = await trickle(base, '/long', ['a', 'b'], { everyMs: 100, stall: true });
    expect(outcome).toEqual({ closed: true });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('POST /admin/campaigns takes a file sent slower than the request timeout', async () => {
    const store = createMemoryStore({});
    server = createHardenedServer(
      createHttpApp({
        store,
        clock: systemClock,
        logger: pino({ level: 'silent' }),
        secrets: new Map(),
        extra: [
          createAdminRouter({
            store,
            registry: createBotRegistry([{ bot: echo, file: 'echo-bot.ts' }]),
            clock: systemClock,
            config: {
              locations: [{ name: 'paris', rateLimitPerSecond: 10 } as LocationConfig],
              adminToken: token,
            },
            logger: pino({ level: 'silent' }),
          }),
        ],
      }),
      limits,
    );
    const base = await listenOn(server, 0, '127.0.0.1');
    const rows = Array.from({ length: 10 }, (_, i) => `+3361234${String(5600 + i)},P${i}\n`);
    const outcome = await trickle(
      base,
      '/admin/campaigns?name=slow&bot=echo',
      ['phone,name\n', ...rows],
      {
        everyMs: 250,
        headers: { authorization: `Bearer ${token}` },
      },
    );
    expect(outcome).toMatchObject({ status: 201 });
    expect(JSON.parse((outcome as { body: string }).body)).toMatchObject({
      rows: 10,
      imported: { added: 10 },
    });
    // Without the token the same slow upload is refused at once, before its body.
    const refused = await trickle(base, '/admin/campaigns?name=slow&bot=echo', ['phone\n'], {
      everyMs: 250,
      stall: true,
    });
    expect(refused).toMatchObject({ status: 401 });
  });
});
