import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/app/config.ts';
import { type RunningDev, startDev } from '../../../src/app/start-dev.ts';
import type { StoredSms } from '../../../src/emulator/index.ts';
import { startEmulator } from '../../../src/emulator/index.ts';
import { freePort } from '../../support/free-port.ts';
import { waitFor } from '../../support/wait-for.ts';

describe('dev: a clock that moves, and a log line per turn', () => {
  let dev: RunningDev;
  const lines: Record<string, unknown>[] = [];
  beforeAll(async () => {
    const config = await loadConfig({
      PORT: '0',
      REPLYFLOW_BOTS_DIR: resolve('test/fixtures/bots'),
      LOG_LEVEL: 'info',
    });
    const capture = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    dev = await startDev(config, pino({ level: 'info' }, capture), { watch: false });
  });
  afterAll(() => dev?.close());

  const bodies = async (phone: string) =>
    ((await (await fetch(`${dev.url}/_emulator/messages?to=${phone}`)).json()) as StoredSms[]).map(
      (sms) => sms.body,
    );

  it('advancing the clock fires the timers it made due, without waiting for them', async () => {
    const phone = '33612000001';
    await fetch(`${dev.url}/dev/conversations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ bot: 'reminder', phone }),
    });
    await waitFor(async () => (await bodies(phone)).length === 1, { message: 'first message' });
    const before = dev.clock.now();
    dev.clock.advance(24 * 3600_000 + 1_000);
    expect(dev.clock.now() - before).toBeGreaterThanOrEqual(24 * 3600_000);
    expect(dev.clock.offset()).toBe(24 * 3600_000 + 1_000);
    // The 24 h reminder goes out at once: the scheduler sweeps on the advance.
    await waitFor(
      async () => (await bodies(phone)).includes('Reminder: please reply YES to confirm.'),
      {
        timeout: 2_000,
        message: 'the reminder sent after the advance',
      },
    );
    expect(() => dev.clock.advance(-1)).toThrow(/cannot advance the clock by -1 ms/);
  });

  it('logs each turn at info with the bot, the states before and after, and the masked phone', async () => {
    const phone = '33612000002';
    await fetch(`${dev.url}/dev/conversations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ bot: 'reminder', phone }),
    });
    // The handset can answer once the message has reached it.
    await waitFor(async () => {
      const sent = await fetch(`${dev.url}/_emulator/messages?to=${phone}`);
      return ((await sent.json()) as StoredSms[]).some((sms) => sms.status === 'delivered');
    });
    const answered = await fetch(`${dev.url}/_emulator/replies`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ from: phone, body: 'YES' }),
    });
    expect(answered.status).toBe(201);
    await waitFor(
      () => lines.some((line) => line.conversation === '336•••••002' && line.to === 'confirmed'),
      { message: `a turn to confirmed in ${JSON.stringify(lines.slice(-8))}` },
    );
    const turns = lines.filter((line) => line.conversation === '336•••••002' && line.bot);
    expect(turns[0]).toMatchObject({ level: 30, bot: 'reminder', from: '(start)', to: 'waiting' });
    expect(turns).toContainEqual(
      expect.objectContaining({ level: 30, bot: 'reminder', from: 'waiting', to: 'confirmed' }),
    );
    expect(JSON.stringify(lines)).not.toContain(phone);
  });
});

describe('log format by command', () => {
  it('dev writes human-readable lines; start keeps JSON', { timeout: 60_000 }, async () => {
    const read = (args: string[], env: Record<string, string>, ready: RegExp) =>
      new Promise<string>((done, fail) => {
        const child = spawn(process.execPath, ['bin/replyflow.js', ...args], {
          env: {
            PATH: process.env.PATH,
            REPLYFLOW_BOTS_DIR: 'test/fixtures/echo-bot-only',
            ...env,
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          fail(new Error(`not ready: ${out}`));
        }, 30_000);
        const take = (d: Buffer) => {
          out += d;
          if (ready.test(out)) {
            clearTimeout(timer);
            child.kill('SIGTERM');
            child.once('exit', () => done(out));
          }
        };
        child.stdout.on('data', take);
        child.stderr.on('data', take);
      });
    const dev = await read(['dev', '--port', String(await freePort())], {}, /dev phone:/);
    expect(dev).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: replyflow is listening/m);
    expect(dev).not.toMatch(/^\{"level"/m);
    const emulator = await startEmulator({
      port: 0,
      keyPairs: [{ id: 'k', secret: 's', location: 'x' }],
    });
    try {
      const start = await read(
        ['start'],
        {
          PORT: String(await freePort()),
          REPLYFLOW_PROVIDER_URL: emulator.baseUrl,
          REPLYFLOW_API_KEY_ID: 'k',
          REPLYFLOW_API_KEY_SECRET: 's',
          REPLYFLOW_WEBHOOK_SECRET: 'log-format-secret-0123',
        },
        /replyflow is listening/,
      );
      const listening = start.split('\n').find((line) => line.includes('replyflow is listening'));
      expect(JSON.parse(listening!)).toMatchObject({ level: 30, msg: 'replyflow is listening' });
    } finally {
      await emulator.close();
    }
  });
});
