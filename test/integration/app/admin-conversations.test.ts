import { spawn } from 'node:child_process';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import appointment from '../../../bots/appointment.ts';
import { createAdminRouter } from '../../../src/admin/create-admin-router.ts';
import { createHttpApp } from '../../../src/app/create-http-app.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { type RunningEmulator, startEmulator } from '../../../src/emulator/index.ts';
import { systemClock } from '../../../src/scheduler/clock.ts';
import { createMemoryStore } from '../../../src/store/memory/create-memory-store.ts';
import { createRedisStore } from '../../../src/store/redis/create-redis-store.ts';
import { freePort } from '../../support/free-port.ts';
import { connectTestRedis, randomPrefix, testRedisUrl } from '../../support/redis.ts';
import { waitFor } from '../../support/wait-for.ts';
import {
  spawnReplyflowProcess,
  stopWorkerProcess,
  type WorkerProcess,
} from '../../support/worker-process.ts';

const token = 'admin-7c1e94b2d06f3a85e9c2417b6d0f8a3e';
const location = 'paris';
const redis = connectTestRedis();
const prefix = randomPrefix('admin');
const store = createRedisStore({ redis, prefix });

describe('POST /admin/conversations on `replyflow start` with real Redis', () => {
  let emulator: RunningEmulator;
  let server: WorkerProcess;
  let base: string;
  let env: Record<string, string>;
  const output: string[] = [];
  beforeAll(async () => {
    emulator = await startEmulator({
      port: 0,
      keyPairs: [{ id: 'k', secret: 's', location }],
      timeScale: 0.01,
    });
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    env = {
      PATH: process.env.PATH ?? '',
      REPLYFLOW_PROVIDER_URL: emulator.baseUrl,
      REPLYFLOW_API_KEY_ID: 'k',
      REPLYFLOW_API_KEY_SECRET: 's',
      REPLYFLOW_LOCATION: location,
      REPLYFLOW_WEBHOOK_SECRET: 'admin-test-secret-0123',
      REPLYFLOW_BOTS_DIR: 'bots',
      REPLYFLOW_ADMIN_TOKEN: token,
      REDIS_URL: testRedisUrl(),
      REPLYFLOW_REDIS_PREFIX: prefix,
      PORT: String(port),
      LOG_LEVEL: 'warn',
    };
    server = spawnReplyflowProcess('start', env, output);
    await waitFor(async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.ok, {
      timeout: 30_000,
      interval: 100,
      message: `replyflow start ready (${output.join('\n')})`,
    });
  });
  afterAll(async () => {
    if (server) await stopWorkerProcess(server);
    await emulator?.close();
    await store.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.unlink(...keys);
    await redis.quit();
  });

  const start = (body: unknown, auth = `Bearer ${token}`) =>
    fetch(`${base}/admin/conversations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: auth },
      body: JSON.stringify(body),
    });
  const messagesTo = async (phone: string) =>
    (await (await fetch(`${emulator.url}/_emulator/messages?to=${phone}`)).json()) as Array<{
      body: string;
    }>;

  it('starts the appointment bot, once per key, refuses a bad input naming the field, and a busy phone under skip', async () => {
    onTestFailed(() => console.error(output.join('\n')));
    const input = { name: 'Ada', at: '2030-12-02T10:00:00+01:00', place: 'Cabinet Voltaire' };
    const phone = '+33 6 12 34 00 01';

    expect((await start({ bot: 'appointment', phone, input }, 'Bearer wrong')).status).toBe(401);
    expect((await start({ bot: 'appointment', phone, input }, '')).status).toBe(401);

    const bad = await start({ bot: 'appointment', phone, input: { ...input, at: 42 } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ field: 'input.at' });
    const missing = await start({
      bot: 'appointment',
      phone,
      input: { name: 'Ada', place: 'Cabinet Voltaire' },
    });
    expect(await missing.json()).toMatchObject({ field: 'input.at' });

    const badPhone = await start({ bot: 'appointment', phone: '+33 1 42 92 81 00', input });
    expect(badPhone.status).toBe(400);
    const badPhoneBody = await badPhone.json();
    expect(badPhoneBody).toMatchObject({ field: 'phone' });
    expect(JSON.stringify(badPhoneBody)).not.toContain('42 92 81 00');
    // A landline written in full: the advice is about mobiles, not about the country prefix.
    expect((badPhoneBody as { error: string }).error).toBe(
      "phone '331•••••100' is not a mobile number: an SMS conversation needs a mobile (a landline cannot answer)",
    );
    const shortPhone = await start({ bot: 'appointment', phone: '0612', input });
    expect(((await shortPhone.json()) as { error: string }).error).toBe(
      "phone '••••' is not a valid phone number: write it with its country prefix (+33 6 12 34 56 78)",
    );

    const unknown = await start({ bot: 'no-such-bot', phone, input });
    expect(unknown.status).toBe(404);

    const first = await start({ bot: 'appointment', phone, input, key: 'booking-1' });
    expect(first.status).toBe(202);
    const firstBody = (await first.json()) as { id: string };
    expect(firstBody).toMatchObject({
      location,
      bot: 'appointment',
      phone: '33612340001',
      policy: 'start',
      duplicate: false,
    });
    const question =
      'Bonjour Ada, vous avez rendez-vous le lundi 2 décembre à 10h (Cabinet Voltaire). Confirmez-vous ? Répondez OUI ou NON.';
    await waitFor(async () => (await messagesTo('33612340001')).length === 1, {
      timeout: 10_000,
      message: 'the appointment question sent',
    });
    expect((await messagesTo('33612340001')).map((m) => m.body)).toEqual([question]);

    // The same key again: the first answer, nothing started.
    const again = await start({ bot: 'appointment', phone, input, key: 'booking-1' });
    expect(again.status).toBe(202);
    expect(await again.json()).toEqual({ ...firstBody, duplicate: true });

    // Another key for a phone that is busy: the bot's default policy, skip.
    const busy = await start({ bot: 'appointment', phone, input, key: 'booking-2' });
    expect(busy.status).toBe(409);
    const busyBody = await busy.json();
    expect(busyBody).toMatchObject({ activeBot: 'appointment' });
    expect(JSON.stringify(busyBody)).not.toContain('33612340001');

    const key = { location, phone: '33612340001' };
    // A keyed start is a record of the API campaign: its start event is `campaign:…`.
    const applied = (await store.listApplied(key)).filter((id) => /^(start|campaign):/.test(id));
    expect(applied).toEqual([`${firstBody.id}:0`]);
    expect(await store.pendingEvents(key)).toEqual([]);
    expect((await store.getConversation(key))?.status).toBe('active');
    expect((await messagesTo('33612340001')).length).toBe(1);
  }, 60_000);

  it('refuses an input nested deeper than 32 levels, or with a lone surrogate, with 400 and stores nothing', async () => {
    const deep = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const post = (input: string) =>
      fetch(`${base}/admin/conversations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: `{"bot":"survey","phone":"+33612340009","input":${input}}`,
      });
    for (const input of [deep(1_001), deep(5_000)]) {
      const res = await post(`{"deep":${input}}`);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        error: expect.stringMatching(/^input\.deep(\.a)+: nested deeper than 32 levels$/),
        field: 'input',
      });
    }
    const lone = await post('{"name":"Ada \\ud83d"}');
    expect(lone.status).toBe(400);
    expect(await lone.json()).toMatchObject({
      error: 'input.name: is not well-formed text (a lone UTF-16 surrogate)',
    });
    expect(await store.pendingEvents({ location, phone: '33612340009' })).toEqual([]);
    expect(await messagesTo('33612340009')).toEqual([]);
  });

  it('does the same from the command line: `replyflow conversations start`', async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(
          process.execPath,
          ['bin/replyflow.js', 'conversations', 'start', ...args],
          {
            env,
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.stderr.on('data', (d) => (stderr += d));
        child.once('exit', (code) => resolve({ code, stdout, stderr }));
      });
    const args = [
      'appointment',
      '--phone',
      '+33612340002',
      '--input',
      '{"name":"Bo","at":"2030-12-03T09:00:00+01:00","place":"Cabinet"}',
    ];
    const first = await run([...args, '--key', 'cli-1']);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    const started = JSON.parse(first.stdout) as { id: string; duplicate: boolean };
    expect(started).toMatchObject({ bot: 'appointment', phone: '33612340002', duplicate: false });
    await waitFor(async () => (await messagesTo('33612340002')).length === 1, {
      timeout: 10_000,
      message: 'the question sent',
    });
    const again = await run([...args, '--key', 'cli-1']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ ...started, duplicate: true });
    const busy = await run([...args, '--key', 'cli-2']);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain("active conversation with bot 'appointment'");
    const bad = await run([
      'appointment',
      '--phone',
      '+33612340003',
      '--input',
      '{"name":"Bo","place":"Cabinet","at":7}',
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('input.at');
    const notJson = await run(['appointment', '--phone', '+33612340003', '--input', '{at']);
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toContain('--input is not JSON');
    expect((await messagesTo('33612340002')).length).toBe(1);
  }, 60_000);
});

describe('the admin routes without a token configured', () => {
  it('answer 403, whatever the Authorization header', async () => {
    const memory = createMemoryStore({});
    const registry = createBotRegistry([{ bot: appointment, file: 'appointment.ts' }]);
    const app = createHttpApp({
      store: memory,
      clock: systemClock,
      logger: pino({ level: 'silent' }),
      secrets: new Map(),
      extra: [
        createAdminRouter({
          store: memory,
          registry,
          clock: systemClock,
          config: { locations: [], adminToken: undefined },
          logger: pino({ level: 'silent' }),
        }),
      ],
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/admin/conversations`;
      for (const authorization of ['', 'Bearer anything']) {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization },
          body: '{}',
        });
        expect(res.status).toBe(403);
        expect(await res.json()).toMatchObject({
          error: expect.stringContaining('REPLYFLOW_ADMIN_TOKEN'),
        });
      }
    } finally {
      server.close();
    }
  });
});
