import { spawn } from 'node:child_process';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import appointment from '../../../bots/appointment.ts';
import { createAdminRouter } from '../../../src/admin/create-admin-router.ts';
import type { LocationConfig } from '../../../src/app/config.ts';
import { createHttpApp } from '../../../src/app/create-http-app.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { createCompliancePolicy } from '../../../src/compliance/create-compliance-policy.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { systemClock } from '../../../src/scheduler/clock.ts';
import { expectNoFullPhoneNumber, LogCapture } from '../../support/log-capture.ts';
import {
  location,
  type ReplyLoop,
  replyNotification,
  settle,
  startReplyLoop,
} from '../../support/reply-loop.ts';
import { workerEnv } from '../../support/worker-process.ts';

const token = 'admin-token-0123456789abcdef';
const registry = createBotRegistry([{ bot: appointment, file: 'appointment.ts' }]);
const input = { name: 'Ada', at: '2030-12-02T10:00:00+01:00', place: 'Cabinet Voltaire' };
const policy = createCompliancePolicy();
const stopped = policy.text('opt-out', policy.match('STOP')!.language);

describe('a start to a phone that opted out, on the admin API and the CLI (real Redis, emulator)', () => {
  const logs = new LogCapture();
  let loop: ReplyLoop;
  let server: Server;
  let base: string;
  beforeAll(async () => {
    loop = await startReplyLoop({ registry, logStream: logs.stream });
    const logger = createLogger({ level: 'debug', destination: logs.stream });
    const app = createHttpApp({
      store: loop.store,
      clock: systemClock,
      logger,
      secrets: new Map(),
      extra: [
        createAdminRouter({
          store: loop.store,
          registry,
          clock: systemClock,
          config: {
            locations: [{ name: location, defaultCountry: 'FR' } as LocationConfig],
            adminToken: token,
          },
          logger,
        }),
      ],
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    server?.close();
    await loop?.close();
  });

  const start = async (body: unknown) => {
    const res = await fetch(`${base}/admin/conversations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const runCli = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const env = { ...workerEnv(loop), REPLYFLOW_BOTS_DIR: 'bots' };
      const child = spawn(
        process.execPath,
        ['bin/replyflow.js', 'conversations', 'start', ...args],
        { env, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.once('exit', (code) => resolve({ code, stdout, stderr }));
    });

  it('answers 409 opted_out, queues and sends nothing, and logs it with the phone masked; a repeat of a start accepted before the STOP is still a duplicate', async () => {
    const phone = '33612349101';
    const masked = '336•••••101';
    const key = { location, phone };
    const first = await start({
      bot: 'appointment',
      phone: '+33 6 12 34 91 01',
      input,
      key: 'b-1',
    });
    expect(first).toMatchObject({ status: 202, body: { phone, duplicate: false } });
    const [question] = await loop.waitForBodies(phone, 1);

    expect(await loop.notify(replyNotification('stop-admin', phone, 'STOP'))).toBe(200);
    expect(await loop.waitForBodies(phone, 2)).toEqual([question, stopped]);
    expect(await loop.store.isSuppressed(key)).toBe(true);

    const refused = await start({ bot: 'appointment', phone: '06 12 34 91 01', input, key: 'b-2' });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: 'opted_out' });
    expect(refused.body.message).toContain(masked);
    expect(JSON.stringify(refused.body)).not.toContain('3491');
    expect(await start({ bot: 'appointment', phone, input })).toMatchObject({
      status: 409,
      body: { error: 'opted_out' },
    });
    // The start accepted before the STOP, asked again: the answer it got then.
    expect(await start({ bot: 'appointment', phone, input, key: 'b-1' })).toEqual({
      status: 202,
      body: { ...first.body, duplicate: true },
    });

    expect(await loop.store.pendingEvents(key)).toEqual([]);
    await settle(loop, phone);
    expect(await loop.bodiesTo(phone)).toEqual([question, stopped]);
    const lines = logs.lines.filter((line) => line.includes('admin start refused'));
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(JSON.parse(line)).toMatchObject({
        level: 30,
        location,
        bot: 'appointment',
        conversation: masked,
        msg: 'admin start refused: the phone opted out',
      });
    }
    expectNoFullPhoneNumber(logs, [phone]);
  });

  it('`replyflow conversations start` to the opted-out phone exits 1 with the opted_out line', async () => {
    const phone = '33612349102';
    expect(await loop.notify(replyNotification('stop-cli', phone, 'STOP'))).toBe(200);
    expect(await loop.waitForBodies(phone, 1)).toEqual([stopped]);
    await settle(loop, phone);
    const run = await runCli([
      'appointment',
      '--phone',
      '+33 6 12 34 91 02',
      '--input',
      JSON.stringify(input),
      '--key',
      'cli-1',
    ]);
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toMatch(/^error 409: opted_out: phone 336•••••102 opted out/m);
    expect(run.stderr).not.toContain(phone);
    expect(await loop.store.pendingEvents({ location, phone })).toEqual([]);
    await settle(loop, phone);
    expect(await loop.bodiesTo(phone)).toEqual([stopped]);
  }, 30_000);
});
