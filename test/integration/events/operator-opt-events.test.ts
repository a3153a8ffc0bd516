import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { newEventSecret } from '../../../src/events/event-secret.ts';
import type { OutboundEvent } from '../../../src/events/outbound-event.ts';
import { signedEvent } from '../../support/event-receiver.ts';
import { location, type ReplyLoop, startReplyLoop } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const secret = newEventSecret();
const token = 'admin-0f1e2d3c4b5a69788796a5b4c3d2e1f0';

/** Runs the real `replyflow` binary with `env` only. */
function replyflow(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['bin/replyflow.js', ...args],
      { cwd: root, env: { PATH: process.env.PATH ?? '', ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

describe("an operator's opt-outs and opt-ins reach the subscriptions, on redis", () => {
  let loop: ReplyLoop;
  let url: string;
  const received: OutboundEvent[] = [];
  let close: () => Promise<void>;

  beforeAll(async () => {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const event = signedEvent(secret, req, Buffer.concat(chunks), res);
        if (!event) return;
        received.push(event);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    close = async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    };
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/crm`;
    loop = await startReplyLoop({
      registry: createBotRegistry([]),
      adminToken: token,
      events: [{ url, secret, types: ['optout', 'optin'], allowPrivateAddresses: true }],
      eventDispatcher: { pollMs: 5 },
    });
  }, 30_000);
  afterAll(async () => {
    await loop?.close();
    await close?.();
  });

  const admin = (method: string, path: string, body?: string) =>
    fetch(`${loop.app.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv' },
      ...(body !== undefined && { body }),
    });
  /** Waits until nothing is left to deliver, then gives what the receiver got. */
  const settled = async () => {
    await waitFor(async () => (await loop.store.listEvents({ limit: 10 })).length === 0, {
      timeout: 10_000,
      message: 'every event delivered',
    });
    return received.map((e) => [e.type, e.data.phone, e.data.payload]);
  };

  it('sends optout for each phone an import through /admin/suppressions adds, once, and optin for a removal', async () => {
    const csv = 'phone,reason\n+33612340101,asked on the phone\n+33612340102,\n';
    const first = await admin('POST', '/admin/suppressions', csv);
    expect(await first.json()).toMatchObject({ imported: 2, existing: 0 });
    await waitFor(() => received.length === 2 || undefined, { message: 'two optout events' });
    // The same file again changes nothing, and sends nothing.
    const again = await admin('POST', '/admin/suppressions', csv);
    expect(await again.json()).toMatchObject({ imported: 0, existing: 2 });
    expect(await settled()).toEqual(
      expect.arrayContaining([
        [
          'optout',
          '33612340101',
          expect.objectContaining({ source: 'api', reason: 'asked on the phone' }),
        ],
        ['optout', '33612340102', expect.objectContaining({ source: 'api' })],
      ]),
    );
    expect(received).toHaveLength(2);
    expect(received[0]?.data).toMatchObject({ location, bot: '', maskedPhone: '336•••••101' });

    expect((await admin('DELETE', '/admin/suppressions/33612340101')).status).toBe(204);
    expect((await admin('DELETE', '/admin/suppressions/33612340101')).status).toBe(404);
    await waitFor(() => received.length === 3 || undefined, { message: 'the optin event' });
    expect(await settled()).toHaveLength(3);
    expect(received[2]).toMatchObject({
      type: 'optin',
      data: { phone: '33612340101', payload: { source: 'api' } },
    });
    expect(new Set(received.map((e) => e.id)).size).toBe(3);
  });

  it('sends them for replyflow suppressions import and remove too', {
    timeout: 90_000,
  }, async () => {
    const before = received.length;
    const file = join(await mkdtemp(join(tmpdir(), 'rf-optouts-')), 'optouts.csv');
    await writeFile(file, 'phone,at\n+33612340201,2026-01-05T09:00:00Z\n');
    const env = {
      REDIS_URL: loop.redis!.url!,
      REPLYFLOW_REDIS_PREFIX: loop.redis!.prefix,
      REPLYFLOW_PROVIDER_URL: loop.emulator.baseUrl,
      REPLYFLOW_API_KEY_ID: 'k',
      REPLYFLOW_API_KEY_SECRET: 's',
      REPLYFLOW_LOCATION: location,
      REPLYFLOW_EVENTS_URL: url,
      REPLYFLOW_EVENTS_SECRET: secret,
      REPLYFLOW_EVENTS_ALLOW_PRIVATE: '1',
      LOG_LEVEL: 'warn',
    };
    const imported = await replyflow(['suppressions', 'import', file], env);
    expect(imported).toMatchObject({ code: 0 });
    expect(imported.stdout).toContain('imported 1');
    const removed = await replyflow(['suppressions', 'remove', '+33612340201'], env);
    expect(removed).toMatchObject({ code: 0 });
    // Delivered by the running deployment's dispatcher, from the shared store.
    await waitFor(() => received.length === before + 2 || undefined, {
      timeout: 20_000,
      message: 'the optout and the optin of the commands',
    });
    expect(received.slice(before).map((e) => [e.type, e.data.phone, e.data.payload])).toEqual([
      ['optout', '33612340201', { source: 'import', optedOutAt: '2026-01-05T09:00:00.000Z' }],
      ['optin', '33612340201', { source: 'cli' }],
    ]);
  });
});
