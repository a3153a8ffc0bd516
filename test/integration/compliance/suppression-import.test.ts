import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminRouter } from '../../../src/admin/create-admin-router.ts';
import type { LocationConfig } from '../../../src/app/config.ts';
import { createHttpApp } from '../../../src/app/create-http-app.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { createCompliancePolicy } from '../../../src/compliance/create-compliance-policy.ts';
import { startConversation } from '../../../src/conversation/start-conversation.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { systemClock } from '../../../src/scheduler/clock.ts';
import echo from '../../fixtures/bots/echo-bot.ts';
import { processedCount, sentByPhone } from '../../support/echo-load.ts';
import { expectNoFullPhoneNumber, LogCapture } from '../../support/log-capture.ts';
import {
  location,
  type ReplyLoop,
  replyNotification,
  settle,
  startReplyLoop,
} from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';
import { workerEnv } from '../../support/worker-process.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const token = 'admin-5f0c2a9e71d4b386c1e0a7f29b5d4c83';
const registry = createBotRegistry([{ bot: echo, file: 'echo-bot.ts' }]);
const policy = createCompliancePolicy();
const stopped = policy.text('opt-out', policy.match('STOP')!.language);
const welcomeBack = policy.text('opt-in', policy.match('START')!.language);
const greeting = 'Echo bot here. Say anything.';
/** The in-process logs and the CLI's stderr: no number may show whole in either. */
const logs = new LogCapture();

/** 2,000 French mobiles from `base` (`3361240` → 33612400000…33612401999). */
const phonesFrom = (base: string) =>
  Array.from({ length: 2_000 }, (_, i) => `${base}${String(i).padStart(4, '0')}`);
const viaCli = phonesFrom('3361240');
const viaApi = phonesFrom('3361250');
/** The time and reason of each imported row: one minute apart from 1 March 2024, 09:30 UTC. */
const atOf = (i: number) => new Date(Date.UTC(2024, 2, 1, 9, 30 + i)).toISOString();
const reasonOf = (i: number) => `crm, list ${i % 7}`;

/** The CLI's file: a BOM, a header in its own case, national and international forms, 3 bad rows. */
function cliCsv(): { text: string; badLines: number[] } {
  const lines = ['\ufeffPhone , Reason,AT'];
  const badLines: number[] = [];
  viaCli.forEach((phone, i) => {
    // National form for a third of them: the location's defaultCountry (FR) reads them.
    const written = i % 3 === 0 ? `0${phone.slice(2, 3)} ${phone.slice(3)}` : `+${phone}`;
    lines.push(`${written},"${reasonOf(i)}",${atOf(i)}`);
    if (i === 10 || i === 500 || i === 1_500) {
      badLines.push(lines.length + 1);
      lines.push(
        i === 10
          ? '0612,no such number,'
          : i === 500
            ? ',no phone,'
            : `+${phone},bad time,yesterday`,
      );
    }
  });
  return { text: `${lines.join('\n')}\n`, badLines };
}

/** Runs the real `replyflow suppressions …` with the loop's environment (REDIS_URL, prefix, location). */
function replyflow(env: Record<string, string>, args: string[]) {
  return cli(env, ['suppressions', ...args]);
}

/** Runs the real `replyflow` binary with the loop's environment. */
function cli(env: Record<string, string>, args: string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['bin/replyflow.js', ...args],
      { cwd: root, env, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        for (const line of stderr.split('\n')) logs.add(line);
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
  });
}

/** Waits until every phone's mailbox and outbox are empty. */
async function drained(loop: ReplyLoop, phones: string[]): Promise<void> {
  await waitFor(
    async () => {
      const pending = await Promise.all(
        phones.map(async (phone) => {
          const [events, outbound] = await Promise.all([
            loop.store.pendingEvents({ location, phone }),
            loop.store.pendingOutbound({ location, phone }),
          ]);
          return events.length + outbound.length;
        }),
      );
      return pending.every((n) => n === 0);
    },
    { timeout: 180_000, interval: 1_000, message: `${phones.length} conversations drained` },
  );
}

describe('opt-outs imported before a campaign (real Redis, the emulator, the CLI and the admin API)', () => {
  let loop: ReplyLoop;
  let server: Server;
  let base: string;
  let env: Record<string, string>;
  let dir: string;
  beforeAll(async () => {
    loop = await startReplyLoop({ registry, logStream: logs.stream, defaultCountry: 'FR' });
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
    env = { ...workerEnv(loop), REPLYFLOW_DEFAULT_COUNTRY: 'FR' };
    dir = mkdtempSync(join(tmpdir(), 'replyflow-suppressions-'));
  }, 30_000);
  afterAll(async () => {
    server?.close();
    await loop?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const admin = (path: string, init: RequestInit = {}) =>
    fetch(`${base}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, ...init.headers },
    });
  /** Posts a CSV as a stream, a few rows a chunk: the route must not need it whole. */
  const postCsv = (rows: string[], query = '') =>
    admin(`/admin/suppressions${query}`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body: Readable.toWeb(
        Readable.from(
          Array.from({ length: Math.ceil(rows.length / 50) }, (_, n) =>
            Buffer.from(`${rows.slice(n * 50, n * 50 + 50).join('\n')}\n`),
          ),
        ),
      ) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
  const startByApi = async (phone: string) => {
    const res = await admin('/admin/conversations', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ bot: 'echo', phone: `+${phone}` }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const exported = async () => {
    const run = await replyflow(env, ['export']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const [header, ...rows] = run.stdout.trimEnd().split('\n');
    expect(header).toBe('phone,at,reason,source');
    return new Map(
      rows.map((row) => {
        const [phone = '', at, ...rest] = row.split(',');
        return [phone, { at, rest: rest.join(',') }];
      }),
    );
  };

  it('imports 2,000 opt-outs from a CSV file with the CLI and 2,000 with the admin API; a campaign over the first 2,000 and 1,000 others skips exactly those 2,000 (opted_out): none of the 4,000 receives anything, the others do, and export gives them back with their reasons', async () => {
    const { text, badLines } = cliCsv();
    const file = join(dir, 'optouts.csv');
    writeFileSync(file, text);

    const first = await replyflow(env, ['import', file]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe(`${location}: imported 2000, already there 0, bad rows 3\n`);
    expect(first.stderr.trimEnd().split('\n')).toEqual([
      `line ${badLines[0]}: phone •••• is not a phone number`,
      `line ${badLines[1]}: no phone`,
      `line ${badLines[2]}: at is not an ISO 8601 date such as 2026-03-01T09:30:00Z`,
    ]);
    // Again: nothing changes, an older opt-out keeps its time.
    const again = await replyflow(env, ['import', file, '--reason', 'second pass']);
    expect(again.stdout).toBe(`${location}: imported 0, already there 2000, bad rows 3\n`);

    const apiRows = ['phone', ...viaApi.map((phone) => `+${phone}`), 'not a number'];
    const rejected = [{ line: 2002, reason: 'the phone is not a phone number' }];
    const posted = await postCsv(apiRows, '?reason=shop%20register');
    expect(posted.status).toBe(200);
    expect(await posted.json()).toEqual({
      location,
      imported: 2000,
      existing: 0,
      rejected,
      rejectedCount: 1,
    });
    const repeated = await postCsv(apiRows, '?reason=shop%20register');
    expect(await repeated.json()).toMatchObject({ imported: 0, existing: 2000, rejected });

    // The API refuses a start to any of them, with 409 opted_out (a sample of each list).
    for (const phone of [
      ...viaCli.filter((_, i) => i % 40 === 0),
      ...viaApi.filter((_, i) => i % 40 === 1),
    ]) {
      const refused = await startByApi(phone);
      expect(refused.status, phone).toBe(409);
      expect(refused.body).toMatchObject({ error: 'opted_out' });
    }
    // A campaign over the 2,000 numbers imported with the CLI and 1,000 others, created with
    // the CLI and fired by the runner: the 2,000 are skipped, opted_out, the others start.
    const others = phonesFrom('3361260').slice(0, 1_000);
    const campaignFile = join(dir, 'spring.csv');
    writeFileSync(
      campaignFile,
      ['phone', ...[...viaCli, ...others].map((phone) => `+${phone}`)].join('\n'),
    );
    const sentBefore = await processedCount(loop.emulator.url);
    const created = await cli(env, [
      'campaigns',
      'create',
      'spring',
      '--bot',
      'echo',
      '--file',
      campaignFile,
    ]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^ {2}opted out +2,?000$/m);
    const spring = { location, name: 'spring' };
    await waitFor(
      async () => {
        const counts = await loop.store.campaignCounts(spring);
        return (counts.scheduled ?? 0) + (counts.held ?? 0) === 0;
      },
      { timeout: 60_000, interval: 200, message: 'the campaign fired' },
    );
    expect(await loop.store.campaignCounts(spring)).toEqual({
      started: 1_000,
      'skipped:opted_out': 2_000,
    });
    // A bot-initiated start through the engine to each number imported with the admin API.
    // 50 at a time, as a caller would: 2,000 scripts queued at once on one connection waited
    // past the store's 2 s command time-out when the whole suite loaded the machine.
    const now = Date.now();
    for (let i = 0; i < viaApi.length; i += 50) {
      await Promise.all(
        viaApi
          .slice(i, i + 50)
          .map((phone) => startConversation(loop.store, { location, phone, botId: 'echo', now })),
      );
    }
    const everyone = [...viaCli, ...viaApi];
    // The others' SMS first (a cheap read of the emulator's count), then every mailbox and outbox.
    await waitFor(async () => (await processedCount(loop.emulator.url)) >= sentBefore + 1_000, {
      timeout: 120_000,
      interval: 250,
      message: "the others' 1,000 SMS",
    });
    await drained(loop, [...everyone, ...others]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const sent = await sentByPhone(loop.emulator.url);
    // Not one SMS to any of the 4,000; the 1,000 others each got the campaign's message.
    expect(everyone.filter((phone) => sent.has(phone))).toEqual([]);
    expect(others.filter((phone) => sent.get(phone)?.length !== 1)).toEqual([]);
    expect(await loop.store.getConversation({ location, phone: viaCli[0]! })).toBeNull();

    const list = await exported();
    expect(list.size).toBe(4_000);
    viaCli.forEach((phone, i) => {
      expect(list.get(phone), phone).toEqual({ at: atOf(i), rest: `"${reasonOf(i)}",import` });
    });
    for (const phone of viaApi) {
      expect(list.get(phone)?.rest, phone).toBe('shop register,api');
    }

    // The admin API gives the same list, as CSV or as JSON lines.
    const ndjson = await admin('/admin/suppressions', {
      headers: { accept: 'application/x-ndjson' },
    });
    expect(ndjson.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const entries = (await ndjson.text())
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { phone: string; reason?: string; source?: string });
    expect(entries).toHaveLength(4_000);
    expect(entries.find((e) => e.phone === viaCli[3])).toEqual({
      phone: viaCli[3],
      at: atOf(3),
      reason: reasonOf(3),
      source: 'import',
    });
    const csv = await admin('/admin/suppressions');
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect((await csv.text()).trimEnd().split('\n')).toHaveLength(4_001);

    const table = await replyflow(env, ['list', '--limit', '3']);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^phone\s+opted out at\s+source\s+reason$/);
    expect(table.stdout).toContain("(the first 3 of paris's list");
    expect(table.stdout).toMatch(/336•••••\d{3}/);
  }, 300_000);

  it('remove lets a number receive again; a STOP texted later keeps its own reason; START removes an imported entry', async () => {
    const [removed = '', byApi = '', texter = '', optIn = ''] = [
      viaCli[1_001],
      viaApi[7],
      viaCli[1_002],
      viaApi[8],
    ];
    const out = await replyflow(env, ['remove', `+${removed}`]);
    expect(out).toMatchObject({ code: 0, stderr: '' });
    expect(out.stdout).toContain('336•••••001 removed from the suppression list of paris');
    const twice = await replyflow(env, ['remove', `+${removed}`]);
    expect(twice).toMatchObject({ code: 1, stdout: '' });
    expect(twice.stderr).toBe(
      'replyflow suppressions remove: 336•••••001 is not on the suppression list of paris\n',
    );
    expect((await startByApi(removed)).status).toBe(202);
    expect(await loop.waitForBodies(removed, 1)).toEqual([greeting]);

    expect((await admin(`/admin/suppressions/%2B${byApi}`, { method: 'DELETE' })).status).toBe(204);
    const gone = await admin(`/admin/suppressions/%2B${byApi}`, { method: 'DELETE' });
    expect(gone.status).toBe(404);
    const goneBody = await gone.text();
    expect(goneBody).toContain('336•••••007');
    expect(goneBody).not.toContain(byApi);
    await loop.start(byApi, 'echo');
    expect(await loop.waitForBodies(byApi, 1)).toEqual([greeting]);

    // An imported number texts STOP: the confirmation is all it gets, the entry says STOP now.
    expect(await loop.notify(replyNotification('stop-imported', texter, 'Stop'))).toBe(200);
    expect(await loop.waitForBodies(texter, 1)).toEqual([stopped]);
    await settle(loop, texter);
    const list = await exported();
    expect(list.get(texter)?.rest).toBe('STOP,stop');
    expect(list.has(removed)).toBe(false);
    // A keyword start is refused too.
    expect(await loop.notify(replyNotification('echo-imported', texter, 'ECHO'))).toBe(200);
    await settle(loop, texter);
    expect(await loop.bodiesTo(texter)).toEqual([stopped]);

    // START lifts an imported entry: the opt-in confirmation, then a start goes through.
    expect(await loop.notify(replyNotification('start-imported', optIn, 'START'))).toBe(200);
    expect(await loop.waitForBodies(optIn, 1)).toEqual([welcomeBack]);
    await settle(loop, optIn);
    expect(await loop.store.isSuppressed({ location, phone: optIn })).toBe(false);
    expect((await startByApi(optIn)).status).toBe(202);
    expect(await loop.waitForBodies(optIn, 2)).toEqual([welcomeBack, greeting]);

    expectNoFullPhoneNumber(logs, [...viaCli, ...viaApi]);
  }, 60_000);

  it('answers clear errors: the admin token, a CSV without a phone column, another content type, an unknown location', async () => {
    const noAuth = await fetch(`${base}/admin/suppressions`);
    expect(noAuth.status).toBe(401);
    const noPhone = await postCsv(['name,reason', 'Ada,crm']);
    expect(noPhone.status).toBe(400);
    expect(await noPhone.json()).toMatchObject({
      error: expect.stringContaining("no 'phone' column"),
    });
    const json = await admin('/admin/suppressions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '[]',
    });
    expect(json.status).toBe(415);
    const lyon = await admin('/admin/suppressions?location=lyon');
    expect(lyon.status).toBe(400);
    expect(await lyon.json()).toMatchObject({ field: 'location' });
    const badPhone = await admin('/admin/suppressions/0612', { method: 'DELETE' });
    expect(badPhone.status).toBe(400);
    expect(await badPhone.json()).toMatchObject({
      error: expect.stringMatching(/^phone '••••' is not a phone number/),
      field: 'phone',
    });
    // No digits at all: said so, not quoted as an empty ''.
    const noDigits = await admin('/admin/suppressions/abc', { method: 'DELETE' });
    expect(await noDigits.json()).toMatchObject({
      error: expect.stringMatching(/^phone \(no digits\) is not a phone number/),
    });
    const cliNoDigits = await replyflow(env, ['remove', 'abc']);
    expect(cliNoDigits.code).toBe(1);
    expect(cliNoDigits.stderr).toContain('(no digits) is not a phone number');
    const file = join(dir, 'no-phone.csv');
    writeFileSync(file, 'name\nAda\n');
    const cli = await replyflow(env, ['import', file]);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toMatch(
      /^replyflow suppressions import: INPUT_INVALID: the CSV has no 'phone' column/,
    );
    const missing = await replyflow(env, ['import', join(dir, 'nope.csv')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/CONFIG_INVALID: cannot read .*nope\.csv/);
  }, 60_000);
});
