import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBots } from '../../../src/bot/load-bots.ts';
import { newEventSecret } from '../../../src/events/event-secret.ts';
import type { OutboundEvent } from '../../../src/events/outbound-event.ts';
import { signedEvent } from '../../support/event-receiver.ts';
import { location, type ReplyLoop, startReplyLoop } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const botsDir = fileURLToPath(new URL('../../../bots', import.meta.url));
const secret = newEventSecret();

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

describe('replyflow webhooks deliveries | replay, against the deployment store', () => {
  let loop: ReplyLoop;
  let env: Record<string, string>;
  /** The receiver refuses (400, given up at once) until told to take them. */
  let accepting = false;
  const accepted: OutboundEvent[] = [];
  let close: () => Promise<void>;
  const phone = '33612348201';

  beforeAll(async () => {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (!accepting) {
          res.writeHead(400).end();
          return;
        }
        const body = Buffer.concat(chunks).toString('utf8');
        const event = signedEvent(secret, req, body, res);
        if (!event) return;
        accepted.push(event);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    close = async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    };
    loop = await startReplyLoop({
      registry: await loadBots(botsDir),
      events: [
        {
          url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
          secret,
          types: ['conversation.started'],
          allowPrivateAddresses: true,
        },
      ],
      eventDispatcher: { pollMs: 5, baseBackoffMs: 10, maxBackoffMs: 50 },
    });
    env = {
      REDIS_URL: loop.redis!.url!,
      REPLYFLOW_REDIS_PREFIX: loop.redis!.prefix,
      REPLYFLOW_BOTS_DIR: botsDir,
      REPLYFLOW_PROVIDER_URL: loop.emulator.baseUrl,
      REPLYFLOW_API_KEY_ID: 'k',
      REPLYFLOW_API_KEY_SECRET: 's',
      REPLYFLOW_LOCATION: location,
      LOG_LEVEL: 'warn',
    };
    await loop.start(phone, 'survey', {});
    await waitFor(
      async () => (await loop.store.listEvents({ failed: true, limit: 5 })).length === 1,
      {
        message: 'the refused event given up',
      },
    );
  }, 30_000);
  afterAll(async () => {
    await loop?.close();
    await close?.();
  });

  it('lists the event given up, masked, then replays it with its id', {
    timeout: 60_000,
  }, async () => {
    const failed = await replyflow(['webhooks', 'deliveries', '--failed', '--json'], env);
    expect(failed).toMatchObject({ code: 0, stderr: '' });
    const [letter, ...more] = failed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(more).toEqual([]);
    expect(letter).toMatchObject({
      event: { type: 'conversation.started', data: { bot: 'survey', phone: '336•••••201' } },
      reason: expect.stringContaining('400'),
    });
    expect(failed.stdout).not.toContain(phone);
    const table = await replyflow(['webhooks', 'deliveries', '--failed'], env);
    expect(table.stdout).toContain(letter.event.id);
    expect(table.stdout).not.toContain(phone);

    accepting = true;
    const replayed = await replyflow(['webhooks', 'replay', letter.event.id], env);
    expect(replayed).toMatchObject({ code: 0, stderr: '' });
    await waitFor(() => accepted.length === 1 || undefined, { message: 'the replay delivered' });
    // The same event, the same id: the receiver dedupes it against the first attempt.
    expect(accepted[0]).toMatchObject({ id: letter.event.id, data: { phone } });
    await waitFor(
      async () => (await loop.store.listEvents({ failed: true, limit: 5 })).length === 0,
    );
    const none = await replyflow(['webhooks', 'deliveries'], env);
    expect(none.stdout.trim()).toBe('(none)');
  });

  it('says clearly when there is no such dead letter', { timeout: 60_000 }, async () => {
    const run = await replyflow(['webhooks', 'replay', 'evt_nope_0'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/replyflow webhooks replay: .*no dead letter 'evt_nope_0'/);
  });
});
