import { spawn } from 'node:child_process';
import type { Server } from 'node:http';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import { z } from 'zod';
import { createAdminRouter } from '../../../src/admin/create-admin-router.ts';
import type { LocationConfig } from '../../../src/app/config.ts';
import { createHttpApp } from '../../../src/app/create-http-app.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { defineBot } from '../../../src/bot/define-bot.ts';
import { reply } from '../../../src/bot/reply.ts';
import { apiRow, getApiCampaign } from '../../../src/campaigns/api-campaign.ts';
import { createManualClock } from '../../../src/scheduler/create-manual-clock.ts';
import { location, type ReplyLoop, settle, startReplyLoop } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';
import { workerEnv } from '../../support/worker-process.ts';

const token = 'admin-token-5e0c2b7a91d4f638';
const hour = 3_600_000;
const day = 24 * hour;
const t0 = Date.parse('2027-03-01T08:00:00Z');

/** One question, and the conversation ends on any answer: every question counted is one start. */
const reminder = defineBot({
  id: 'reminder',
  input: z.object({ name: z.string(), at: z.string() }),
  machine: setup({
    types: {
      input: {} as { input?: { name: string; at: string } },
      context: {} as { name: string; at: string },
    },
  }).createMachine({
    context: ({ input }) => ({ name: input.input?.name ?? '', at: input.input?.at ?? '' }),
    initial: 'asking',
    states: {
      asking: {
        entry: reply(({ context }) => `Hello ${context.name}, see you ${context.at}. Reply OK.`),
        on: { 'sms.reply': 'done' },
      },
      done: { type: 'final' },
    },
  }),
});
const registry = createBotRegistry([{ bot: reminder, file: 'reminder.ts' }]);

describe('scheduled and keyed starts on the admin API (real Redis, the emulator, a manual clock)', () => {
  const clock = createManualClock(t0);
  let loop: ReplyLoop;
  let server: Server;
  let base: string;
  beforeAll(async () => {
    loop = await startReplyLoop({ registry, clock });
    const logger = pino({ level: 'silent' });
    const app = createHttpApp({
      store: loop.store,
      clock,
      logger,
      secrets: new Map(),
      extra: [
        createAdminRouter({
          store: loop.store,
          registry,
          clock,
          config: {
            locations: [{ name: location, rateLimitPerSecond: 1_000 } as LocationConfig],
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

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const start = (body: Record<string, unknown>) =>
    call('POST', '/admin/conversations', { bot: 'reminder', ...body });
  const cancel = (key: string) =>
    call('DELETE', `/admin/conversations/scheduled/${encodeURIComponent(key)}`);
  /** Moves the clock and fires what is due, as the scheduler role does at that time. */
  const moveTo = async (at: number) => {
    clock.set(at);
    await loop.app.fireDueCampaigns!();
  };
  const questionsTo = async (phone: string) =>
    (await loop.bodiesTo(phone)).filter((body) => body.startsWith('Hello'));
  const recordOf = async (key: string) => {
    const meta = await getApiCampaign(loop.store, location);
    return (await loop.store.findRecipient(meta!, apiRow(key)))?.entry.record;
  };

  it('the same key posted 3 times over 40 days starts one conversation; a new date starts it again, once', async () => {
    const phone = '33612347001';
    const request = {
      phone: `+${phone}`,
      input: { name: 'Ada', at: '2027-04-10T08:00:00Z' },
      key: 'booking-7001',
      relativeTo: 'input.at',
      offset: '-24h',
    };
    const first = await start(request);
    expect(first).toEqual({
      status: 202,
      body: {
        id: expect.stringMatching(/^campaign:paris:_api:k[0-9a-f]{31}\.[0-9a-z]+:0$/),
        location,
        bot: 'reminder',
        phone,
        scheduled: true,
        at: '2027-04-09T08:00:00Z',
        state: 'scheduled',
        duplicate: false,
        rescheduled: false,
      },
    });
    for (let d = 1; d <= 40; d++) {
      await moveTo(t0 + d * day);
      if (d === 38) expect(await questionsTo(phone)).toEqual([]);
      if (d === 39) {
        await loop.waitForBodies(phone, 1);
        // The person answers: the conversation ends, so nothing but the key stops a second one.
        await loop.reply(phone, 'OK');
        await waitFor(
          async () => (await loop.store.getConversation({ location, phone }))?.status === 'done',
          { message: 'the first conversation ended' },
        );
        // No retry of that reply's webhook may land after the clock moves a day on (past the
        // applied log's 24 h window, it would be a new event): see loop.emulatorIdle().
        await loop.emulatorIdle();
      }
      // Posted again 25 days after the first time (it waits), and 40 days after (it fired).
      if (d === 25 || d === 40) {
        expect(await start(request)).toEqual({
          status: 202,
          body: { ...first.body, state: d === 25 ? 'scheduled' : 'started', duplicate: true },
        });
      }
    }
    await settle(loop, phone);
    expect(await questionsTo(phone)).toEqual([
      'Hello Ada, see you 2027-04-10T08:00:00Z. Reply OK.',
    ]);

    // A new date (clock at 2027-04-10T08:00Z): rescheduled, and started at that date, once.
    const moved = { ...request, input: { name: 'Ada', at: '2027-04-20T08:00:00Z' } };
    expect(await start(moved)).toMatchObject({
      status: 202,
      body: { at: '2027-04-19T08:00:00Z', state: 'scheduled', rescheduled: true, duplicate: false },
    });
    expect(await start(moved)).toMatchObject({ status: 202, body: { duplicate: true } });
    await moveTo(Date.parse('2027-04-19T07:59:00Z'));
    expect(await questionsTo(phone)).toHaveLength(1);
    await moveTo(Date.parse('2027-04-19T08:00:00Z'));
    await loop.waitForBodies(phone, 2);
    for (let d = 1; d <= 5; d++) await moveTo(Date.parse('2027-04-19T08:00:00Z') + d * day);
    await settle(loop, phone);
    expect(await questionsTo(phone)).toEqual([
      'Hello Ada, see you 2027-04-10T08:00:00Z. Reply OK.',
      'Hello Ada, see you 2027-04-20T08:00:00Z. Reply OK.',
    ]);
    expect(await recordOf('booking-7001')).toMatchObject({ state: 'started', revision: 1 });
  }, 120_000);

  it('a keyed start now: the runner starts it within a second, and the key outlives the applied log (main started it again 25 days later) until REPLYFLOW_RETENTION', async () => {
    const phone = '33612347002';
    clock.set(Date.parse('2027-05-01T08:00:00Z'));
    const request = {
      phone: `+${phone}`,
      input: { name: 'Bo', at: 'noon' },
      key: 'visit-7002',
    };
    const posted = Date.now();
    const first = await start(request);
    expect(first).toEqual({
      status: 202,
      body: {
        id: expect.any(String),
        location,
        bot: 'reminder',
        phone,
        policy: 'start',
        duplicate: false,
      },
    });
    // Nobody fires the runner: it hears the store's announcement of the new due time.
    await waitFor(async () => (await loop.store.getConversation({ location, phone })) !== null, {
      timeout: 1_000,
      interval: 10,
      message: 'the keyed start taken by the runner within a second',
    });
    const latency = Date.now() - posted;
    expect(latency).toBeLessThan(1_000);
    await loop.waitForBodies(phone, 1);
    // A day and an hour later the person answers: the conversation ends, and its applied log
    // starts again (it keeps 24 h), forgetting the start's event id.
    clock.advance(day + hour);
    await loop.reply(phone, 'OK');
    await waitFor(
      async () => (await loop.store.getConversation({ location, phone }))?.status === 'done',
      { message: 'the conversation ended' },
    );
    await loop.emulatorIdle();
    for (const later of [25, 29]) {
      await moveTo(Date.parse('2027-05-01T08:00:00Z') + later * day);
      expect(await start(request)).toEqual({
        status: 202,
        body: { ...first.body, duplicate: true },
      });
      await loop.app.fireDueCampaigns!();
    }
    await settle(loop, phone);
    expect(await questionsTo(phone)).toEqual(['Hello Bo, see you noon. Reply OK.']);
    // Another request under the key of a start that ended: refused, not a second text.
    expect(await start({ ...request, input: { name: 'Bo', at: 'one' } })).toMatchObject({
      status: 409,
      body: { error: 'key_conflict' },
    });
    // REPLYFLOW_RETENTION (30 days, the default) after its time the key is forgotten, as the
    // rest of the conversation's data: the same request is a new start (DESIGN §2.7).
    await moveTo(Date.parse('2027-05-01T08:00:00Z') + 30 * day + 2 * hour);
    expect(await start(request)).toMatchObject({ status: 202, body: { duplicate: false } });
    await loop.waitForBodies(phone, 2);
  }, 60_000);

  it('relativeTo input.at with -24h across the DST change in Paris starts at the right instant; -1d keeps the wall time', async () => {
    clock.set(Date.parse('2027-03-20T08:00:00Z'));
    // 10:00 in Paris on Sunday 28 March 2027, hours after the clocks went forward (08:00Z).
    const input = { name: 'Cy', at: '2027-03-28T10:00' };
    const exact = await start({
      phone: '+33612347003',
      input,
      key: 'dst-24h',
      relativeTo: 'input.at',
      offset: '-24h',
      timeZone: 'Europe/Paris',
    });
    // 24 hours before, on Saturday's wall clock, is 09:00 (+01:00).
    expect(exact).toMatchObject({ status: 202, body: { at: '2027-03-27T09:00:00+01:00' } });
    const calendar = await start({
      phone: '+33612347004',
      input,
      key: 'dst-1d',
      relativeTo: 'input.at',
      offset: '-1d',
      timeZone: 'Europe/Paris',
    });
    expect(calendar).toMatchObject({ status: 202, body: { at: '2027-03-27T10:00:00+01:00' } });

    await moveTo(Date.parse('2027-03-27T07:59:00Z'));
    expect(await questionsTo('33612347003')).toEqual([]);
    await moveTo(Date.parse('2027-03-27T08:00:00Z'));
    await loop.waitForBodies('33612347003', 1);
    expect((await loop.store.getConversation({ location, phone: '33612347003' }))?.startedAt).toBe(
      Date.parse('2027-03-27T08:00:00Z'),
    );
    expect(await questionsTo('33612347004')).toEqual([]);
    await moveTo(Date.parse('2027-03-27T09:00:00Z'));
    await loop.waitForBodies('33612347004', 1);
    expect((await loop.store.getConversation({ location, phone: '33612347004' }))?.startedAt).toBe(
      Date.parse('2027-03-27T09:00:00Z'),
    );
  }, 60_000);

  it('a delivery window holds a start due at 21:00 until 09:00 the next morning', async () => {
    const phone = '33612347005';
    clock.set(Date.parse('2027-06-01T08:00:00Z'));
    const held = await start({
      phone: `+${phone}`,
      input: { name: 'Di', at: 'tomorrow' },
      key: 'window-7005',
      at: '2027-06-01T21:00',
      deliveryWindow: '09:00-19:00',
      timeZone: 'Europe/Paris',
    });
    expect(held).toMatchObject({
      status: 202,
      body: { at: '2027-06-02T09:00:00+02:00', state: 'scheduled' },
    });
    await moveTo(Date.parse('2027-06-01T19:00:00Z')); // 21:00 in Paris
    await moveTo(Date.parse('2027-06-02T06:59:00Z'));
    await settle(loop, phone);
    expect(await questionsTo(phone)).toEqual([]);
    await moveTo(Date.parse('2027-06-02T07:00:00Z')); // 09:00 in Paris
    await loop.waitForBodies(phone, 1);
  }, 60_000);

  it('a time already past: skipped past_due and recorded (409), or started now under sendIfWithin', async () => {
    clock.set(Date.parse('2027-07-01T12:00:00Z'));
    const late = { input: { name: 'Ed', at: 'now' }, at: '2027-07-01T10:00:00Z' };
    const skipped = await start({ ...late, phone: '+33612347006', key: 'late-skip' });
    expect(skipped).toEqual({
      status: 409,
      body: { error: 'past_due', message: 'was due 2027-07-01T10:00:00Z, 2 h ago' },
    });
    expect(await recordOf('late-skip')).toMatchObject({ state: 'skipped', reason: 'past_due' });
    expect(await start({ ...late, phone: '+33612347006', key: 'late-skip' })).toMatchObject({
      status: 409,
      body: { error: 'past_due' },
    });

    const sent = await start({
      ...late,
      phone: '+33612347007',
      key: 'late-send',
      sendIfWithin: '6h',
    });
    expect(sent).toMatchObject({
      status: 202,
      body: { at: '2027-07-01T12:00:00Z', state: 'scheduled', duplicate: false },
    });
    await loop.waitForBodies('33612347007', 1);
    const tooLate = await start({
      ...late,
      phone: '+33612347008',
      key: 'late-too',
      sendIfWithin: '1h',
    });
    expect(tooLate).toMatchObject({ status: 409, body: { error: 'past_due' } });
    expect(tooLate.body.message).toContain('later than the 1 h allowed');
    await settle(loop, '33612347006');
    expect(await questionsTo('33612347006')).toEqual([]);
    expect(await questionsTo('33612347008')).toEqual([]);
  }, 60_000);

  it('DELETE cancels a start that has not fired (nothing is sent at its time) and answers 409 for one that fired', async () => {
    clock.set(Date.parse('2027-08-01T08:00:00Z'));
    const input = { name: 'Flo', at: 'later' };
    await start({ phone: '+33612347009', input, key: 'cancel-me', at: '2027-08-02T08:00:00Z' });
    await start({ phone: '+33612347010', input, key: 'fire-me', at: '2027-08-01T09:00:00Z' });
    expect(await cancel('cancel-me')).toEqual({
      status: 200,
      body: { cancelled: true, location, key: 'cancel-me' },
    });
    expect(await cancel('cancel-me')).toMatchObject({ status: 200 });
    expect(await cancel('never-given')).toMatchObject({
      status: 404,
      body: { error: 'not_found' },
    });
    await moveTo(Date.parse('2027-08-01T09:00:00Z'));
    await loop.waitForBodies('33612347010', 1);
    expect(await cancel('fire-me')).toMatchObject({
      status: 409,
      body: { error: 'already_started' },
    });
    await moveTo(Date.parse('2027-08-02T08:00:00Z'));
    await moveTo(Date.parse('2027-08-03T08:00:00Z'));
    await settle(loop, '33612347009');
    expect(await questionsTo('33612347009')).toEqual([]);
    expect(await recordOf('cancel-me')).toMatchObject({ state: 'skipped', reason: 'cancelled' });
    // The cancelled request posted again is a retry: it does not come back to life, and the
    // answer says why it was skipped.
    expect(
      await start({ phone: '+33612347009', input, key: 'cancel-me', at: '2027-08-02T08:00:00Z' }),
    ).toMatchObject({
      status: 202,
      body: { duplicate: true, state: 'skipped', reason: 'cancelled' },
    });
    // A duplicate of a start that fired has no reason to give.
    const fired = await start({
      phone: '+33612347010',
      input,
      key: 'fire-me',
      at: '2027-08-01T09:00:00Z',
    });
    expect(fired).toMatchObject({ status: 202, body: { duplicate: true, state: 'started' } });
    expect(fired.body).not.toHaveProperty('reason');
  }, 60_000);

  it('refuses a scheduled start without a key, a bad date, offset, window, zone or duration (400 naming the field), and a key of another phone (409)', async () => {
    clock.set(Date.parse('2027-09-01T08:00:00Z'));
    const base = { phone: '+33612347011', input: { name: 'Gil', at: '2027-09-05T10:00:00Z' } };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ at: '2027-09-02T08:00:00Z' }, 'key'],
      [{ deliveryWindow: '09:00-19:00' }, 'key'],
      [{ key: 'k', at: 'next monday' }, 'at'],
      [{ key: 'k', relativeTo: 'input.at', offset: '24h' }, 'offset'],
      [{ key: 'k', offset: '-24h' }, 'offset'],
      [{ key: 'k', at: '2027-09-02T08:00:00Z', relativeTo: 'input.at' }, 'relativeTo'],
      [{ key: 'k', at: '2027-09-02T08:00:00Z', deliveryWindow: '9-19' }, 'deliveryWindow'],
      [{ key: 'k', at: '2027-09-02T08:00', timeZone: 'Europe/Pariss' }, 'timeZone'],
      [{ key: 'k', at: '2027-09-02T08:00:00Z', sendIfWithin: 'soon' }, 'sendIfWithin'],
      [{ key: 'k', relativeTo: 'input.when', offset: '-1d' }, 'input.when'],
    ];
    for (const [fields, field] of cases) {
      const answer = await start({ ...base, ...fields });
      expect({ fields, ...answer }).toMatchObject({ fields, status: 400, body: { field } });
      expect(answer.body.error).toEqual(expect.stringContaining(field));
    }
    expect(await recordOf('k')).toBeUndefined();

    await start({ ...base, key: 'owned', at: '2027-09-02T08:00:00Z' });
    expect(
      await start({ ...base, phone: '+33612347012', key: 'owned', at: '2027-09-02T08:00:00Z' }),
    ).toMatchObject({ status: 409, body: { error: 'key_conflict' } });
  });
  it('does the same from the command line: `conversations start --at/--relative-to … --key`, then `conversations cancel KEY`', async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['bin/replyflow.js', 'conversations', ...args], {
          env: { ...workerEnv(loop), REPLYFLOW_BOTS_DIR: 'bots' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.stderr.on('data', (d) => (stderr += d));
        child.once('exit', (code) => resolve({ code, stdout, stderr }));
      });
    const appointment = [
      'start',
      'appointment',
      '--phone',
      '+33 6 12 34 70 20',
      '--input',
      '{"name":"Ada","at":"2030-12-02T10:00:00+01:00","place":"Cabinet Voltaire"}',
    ];
    const relative = [
      ...appointment,
      '--relative-to',
      'input.at',
      '--offset',
      '-1d',
      '--window',
      '09:00-19:00',
      '--time-zone',
      'Europe/Paris',
      '--key',
      'cli-7020',
    ];
    const first = await run(relative);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(first.stdout)).toMatchObject({
      phone: '33612347020',
      scheduled: true,
      at: '2030-12-01T10:00:00+01:00',
      state: 'scheduled',
      duplicate: false,
      rescheduled: false,
    });
    const again = await run(relative);
    expect(JSON.parse(again.stdout)).toMatchObject({ duplicate: true, state: 'scheduled' });
    const at = await run([...appointment, '--at', '2030-12-01T20:30', '--key', 'cli-7020']);
    expect(JSON.parse(at.stdout)).toMatchObject({
      at: '2030-12-01T20:30:00Z',
      rescheduled: true,
    });
    const noKey = await run([...appointment, '--at', '2030-12-01T20:30']);
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toContain('error 400: key: a scheduled start needs a key');

    const cancelled = await run(['cancel', 'cli-7020']);
    expect(cancelled).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(cancelled.stdout)).toEqual({ cancelled: true, location, key: 'cli-7020' });
    expect(await recordOf('cli-7020')).toMatchObject({ state: 'skipped', reason: 'cancelled' });
    expect((await run(['cancel', 'cli-7020'])).code).toBe(0);
    const unknown = await run(['cancel', 'cli-unknown']);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toContain("error 404: not_found: no start with key 'cli-unknown'");
    // Eight runs of the CLI, each a Node process loading TypeScript: seconds each on a busy machine.
  }, 180_000);
});

describe('a scheduled start on the real clock (real Redis, the emulator, nobody firing the runner)', () => {
  const adminToken = 'admin-token-9a1c3e5b7d2f4a68';
  let loop: ReplyLoop;
  beforeAll(async () => {
    loop = await startReplyLoop({ registry, adminToken });
  });
  afterAll(async () => {
    await loop?.close();
  });

  it('a keyed start at now + 2 s fires by itself within a second of its time, and not before', async () => {
    const phone = '33612347030';
    // A whole second, at least 2 s ahead: the API answers the time it will use.
    const at = Math.ceil((Date.now() + 2_000) / 1_000) * 1_000;
    const res = await fetch(`${loop.app.url}/admin/conversations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
      body: JSON.stringify({
        bot: 'reminder',
        phone: `+${phone}`,
        input: { name: 'Flo', at: 'soon' },
        key: 'real-clock-7030',
        at: new Date(at).toISOString(),
      }),
    });
    const body = (await res.json()) as Record<string, unknown>;
    expect(res.status, JSON.stringify(body)).toBe(202);
    expect(body).toMatchObject({ scheduled: true, state: 'scheduled' });
    expect(Date.parse(body.at as string)).toBe(at);
    expect(Date.now()).toBeLessThan(at);
    // Nobody fires the runner: it sleeps until the start is due, then starts it.
    const [sms] = await loop.waitForBodies(phone, 1, 15_000).then(async () => {
      const list = await fetch(`${loop.emulator.url}/_emulator/messages?to=${phone}`);
      return (await list.json()) as Array<{ body: string; createdAt: string }>;
    });
    expect(sms!.body).toBe('Hello Flo, see you soon. Reply OK.');
    const record = await loop.store.getConversation({ location, phone });
    // Started at its time, not before, and within a second of it; its SMS likewise not before.
    expect(record!.startedAt).toBeGreaterThanOrEqual(at);
    expect(record!.startedAt - at).toBeLessThan(1_000);
    expect(Date.parse(sms!.createdAt)).toBeGreaterThanOrEqual(at);
    console.log(
      `scheduled start on the real clock: started ${record!.startedAt - at} ms after its time, its SMS accepted ${Date.parse(sms!.createdAt) - at} ms after`,
    );
  }, 30_000);
});
