import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminRouter } from '../../../src/admin/create-admin-router.ts';
import type { LocationConfig } from '../../../src/app/config.ts';
import { createHardenedServer } from '../../../src/app/create-hardened-server.ts';
import { createHttpApp } from '../../../src/app/create-http-app.ts';
import { listenOn } from '../../../src/app/listen-on.ts';
import type { BotRegistry } from '../../../src/bot/bot-registry.ts';
import { loadBots } from '../../../src/bot/load-bots.ts';
import { toZonedIso } from '../../../src/campaigns/zoned-iso.ts';
import { createManualClock, type ManualClock } from '../../../src/scheduler/create-manual-clock.ts';
import { LogCapture } from '../../support/log-capture.ts';
import { location, type ReplyLoop, startReplyLoop } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';
import { workerEnv } from '../../support/worker-process.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const botsDir = fileURLToPath(new URL('../../../bots', import.meta.url));
const token = 'admin-7e2c4a6b8d0f1e3c5a7b9d2f4e6a8c0b';
const day = 86_400_000;
/** The CLI's output, stdout and stderr: no number may show whole in it. */
const output = new LogCapture();

/** Runs the real `replyflow campaigns|results …` with the loop's environment. */
function replyflow(env: Record<string, string>, args: string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['bin/replyflow.js', ...args],
      { cwd: root, env, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        // `results` prints numbers whole on purpose; every other line is checked.
        if (args[0] !== 'results') {
          for (const line of `${stdout}\n${stderr}`.split('\n')) output.add(line);
        }
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
  });
}

/** An appointment at 10:00 in Paris, `days` from now (the day's offset is always +01:00 or +02:00). */
function appointmentAt(days: number): string {
  const date = new Date(Date.now() + days * day).toISOString().slice(0, 10);
  const offset = new Intl.DateTimeFormat('en-US', {
    timeZone: 'Europe/Paris',
    timeZoneName: 'longOffset',
  })
    .formatToParts(new Date(`${date}T10:00:00Z`))
    .find((part) => part.type === 'timeZoneName')!
    .value.replace('GMT', '');
  return `${date}T10:00:00${offset}`;
}

const appointmentPhones = Array.from({ length: 20 }, (_, i) => `3361${String(8_000_000 + i)}`);
const optedOut = appointmentPhones[4]!;

/** 20 appointments and 5 bad rows (lines 22 to 26), a BOM before the header. */
function appointmentsCsv(): string {
  const lines = ['\ufeffphone,name,at,place'];
  appointmentPhones.forEach((phone, i) => {
    lines.push(`+${phone},Person ${i},${appointmentAt(3 + (i % 3))},"Paris, 11e"`);
  });
  lines.push(`0612,Bad phone,${appointmentAt(3)},Paris`);
  lines.push(`+33618100001,,${appointmentAt(3)},Paris`);
  lines.push(`+33618100002,Bad date,next tuesday,Paris`);
  lines.push(`+${appointmentPhones[0]},Twice,${appointmentAt(4)},Paris`);
  lines.push(`+33618100003,Too late,${appointmentAt(0.5)},Paris`);
  return `${lines.join('\n')}\n`;
}

describe('replyflow campaigns (the real CLI on real Redis, with the emulator)', () => {
  let loop: ReplyLoop;
  let clock: ManualClock;
  let registry: BotRegistry;
  let env: Record<string, string>;
  let dir: string;
  let server: Server;
  let base: string;
  beforeAll(async () => {
    registry = await loadBots(botsDir);
    clock = createManualClock(Date.now());
    loop = await startReplyLoop({ registry, clock });
    env = { ...workerEnv(loop), REPLYFLOW_BOTS_DIR: botsDir };
    dir = mkdtempSync(join(tmpdir(), 'replyflow-campaigns-'));
    server = createHardenedServer(
      createHttpApp({
        store: loop.store,
        clock,
        logger: pino({ level: 'silent' }),
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
            logger: pino({ level: 'silent' }),
          }),
        ],
      }),
    );
    base = await listenOn(server, 0, '127.0.0.1');
  }, 60_000);
  afterAll(async () => {
    server?.close();
    await loop?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('creates a campaign from a CSV: a dry run first (totals, exclusions, first rows with their send times; nothing stored), then for real; show prints the counts and list lists it', async () => {
    await loop.store.addSuppressions(
      location,
      [{ phone: optedOut, at: Date.now(), reason: 'crm' }],
      'import',
    );
    const file = join(dir, 'appointments.csv');
    writeFileSync(file, appointmentsCsv());
    const create = [
      'campaigns',
      'create',
      'confirmations',
      '--bot',
      'appointment',
      '--file',
      file,
      '--relative-to',
      'at',
      '--offset',
      '-24h',
      '--window',
      '09:00-19:00',
      '--time-zone',
      'Europe/Paris',
      '--rate',
      '20/s',
    ];

    const dry = await replyflow(env, [...create, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    const lines = dry.stdout.split('\n');
    expect(lines[0]).toBe('Dry run: nothing was stored.');
    const total = (label: string) =>
      lines
        .find((line) => line.startsWith(`${label}  `))
        ?.slice(label.length)
        .trim();
    expect(total('rows')).toBe('25');
    expect(total('to send')).toBe('19');
    expect(total('excluded')).toBe('6');
    expect(total('  opted out')).toBe('1');
    expect(total('  bad phone')).toBe('1');
    expect(total('  bad input')).toBe('2');
    expect(total('  past due')).toBe('1');
    expect(total('  duplicate phone')).toBe('1');
    // The first rows, each with its send time: 24 h before, on the recipient's clock.
    const sendAt = toZonedIso(Date.parse(appointmentAt(3)) - day, 'Europe/Paris');
    const first = lines.find((line) => line.startsWith('2 '));
    expect(first).toMatch(
      new RegExp(`^2 +336•••••000 +${sendAt.replace('+', '\\+')} +\\{"name":"Person 0"`),
    );
    expect(dry.stdout).toMatch(/\n6 +excluded: opted_out +the phone opted out\n/);
    const errorsFile = join(dir, 'confirmations-errors.csv');
    expect(dry.stdout).toContain(`5 bad rows, each with its line and reason, are in ${errorsFile}`);
    const errors = parse(readFileSync(errorsFile, 'utf8'), { columns: true }) as Array<
      Record<string, string>
    >;
    expect(errors.map((row) => [row.line, row.reason])).toEqual([
      ['22', 'bad_phone'],
      ['23', 'bad_input'],
      ['24', 'bad_input'],
      ['25', 'duplicate'],
      ['26', 'past_due'],
    ]);
    expect(await loop.store.getCampaign({ location, name: 'confirmations' })).toBeNull();

    const real = await replyflow(env, create);
    expect(real.code, real.stderr).toBe(0);
    expect(real.stdout.split('\n')[0]).toBe(
      'Campaign confirmations (bot appointment, paris): created, active, 20/s.',
    );
    expect(real.stdout).toMatch(/\nadded +25\n/);
    expect(await loop.store.getCampaign({ location, name: 'confirmations' })).toMatchObject({
      bot: 'appointment',
      schedule: { relativeTo: 'at', offset: '-24h' },
      window: '09:00-19:00',
    });

    const show = await replyflow(env, ['campaigns', 'show', 'confirmations']);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(/^campaign +confirmations$/m);
    expect(show.stdout).toMatch(/^status +active$/m);
    expect(show.stdout).toMatch(/^scheduled +- +19$/m);
    expect(show.stdout).toMatch(/^skipped +opted out +1$/m);
    expect(show.stdout).toMatch(/^skipped +bad input +2$/m);
    expect(show.stdout).toMatch(/^total +- +25$/m);
    expect(show.stdout).toMatch(/^sent +0$/m);

    const list = await replyflow(env, ['campaigns', 'list']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(
      /^confirmations +paris +appointment +active +-24h from column at +20\/s +25 +19 +0 +6 +0$/m,
    );

    // Refusals: one line and exit 1.
    const otherBot = await replyflow(env, [...create.slice(0, 4), 'survey', ...create.slice(5)]);
    expect(otherBot.code).toBe(1);
    expect(otherBot.stderr).toMatch(/^replyflow campaigns create: CAMPAIGN_CONFLICT: /);
    const unknown = await replyflow(env, ['campaigns', 'pause', 'nope']);
    expect(unknown).toMatchObject({ code: 1 });
    expect(unknown.stderr).toMatch(/CAMPAIGN_NOT_FOUND: no campaign 'nope'/);
  }, 120_000);

  it('results --campaign lists that campaign’s conversations only, each with its campaign and row', async () => {
    const phones = Array.from({ length: 4 }, (_, i) => `3361${String(8_100_000 + i)}`);
    const others = ['33618200000', '33618200001'];
    const file = join(dir, 'visits.csv');
    writeFileSync(file, `phone,lang\n${phones.map((p) => `+${p},en`).join('\n')}\n`);
    const at = new Date(clock.now() + 3_600_000).toISOString();
    const created = await replyflow(env, [
      'campaigns',
      'create',
      'spring',
      '--bot',
      'survey',
      '--file',
      file,
      '--at',
      at,
    ]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain('No bad rows.');
    expect(existsSync(join(dir, 'spring-errors.csv'))).toBe(false);
    for (const phone of others) await loop.start(phone, 'survey', { lang: 'en' });
    clock.set(Date.parse(at));
    await loop.app.fireDueCampaigns!();
    for (const phone of [...phones, ...others]) await loop.waitForBodies(phone, 1);
    for (const phone of [...phones, ...others]) await loop.reply(phone, '1');
    await waitFor(
      async () => {
        const records = await Promise.all(
          [...phones, ...others].map((phone) => loop.store.getConversation({ location, phone })),
        );
        return records.every((record) => record?.result?.visit === 'excellent');
      },
      { timeout: 20_000, interval: 50, message: 'every first answer recorded' },
    );

    const csv = await replyflow(env, ['results', 'survey', '--campaign', 'spring']);
    expect(csv.code, csv.stderr).toBe(0);
    const rows = parse(csv.stdout, { columns: true }) as Array<Record<string, string>>;
    expect(rows.map((row) => [row.phone, row.campaign, row.row, row.visit]).sort()).toEqual(
      phones.map((phone) => [phone, 'spring', phone, 'excellent']),
    );
    const all = parse((await replyflow(env, ['results', 'survey'])).stdout, {
      columns: true,
    }) as Array<Record<string, string>>;
    expect(all.filter((row) => others.includes(row.phone!)).map((row) => row.campaign)).toEqual([
      '',
      '',
    ]);

    // A name no location knows (a typo) is an error, not an empty list.
    const typo = await replyflow(env, ['results', 'survey', '--campaign', 'sprnig']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain(
      "no campaign 'sprnig' in location 'paris', and no results for it: see replyflow campaigns list",
    );

    // The admin API gives the same, as JSON.
    const res = await fetch(`${base}/admin/campaigns/spring/results?format=json`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const results = (await res.json()) as Array<{ phone: string; campaign: string; row: string }>;
    expect(results.map((r) => [r.phone, r.campaign, r.row]).sort()).toEqual(
      phones.map((phone) => [phone, 'spring', phone]),
    );
  }, 120_000);

  /** The SMS the emulator accepted for each phone, by phone. */
  const smsCounts = async (phones: readonly string[]) =>
    Promise.all(phones.map(async (phone) => (await loop.bodiesTo(phone)).length));
  /** Waits until the phones' mailboxes and outboxes are empty (what was fired is sent). */
  const drained = (phones: readonly string[]) =>
    waitFor(
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
      { timeout: 20_000, interval: 100, message: `${phones.length} phones drained` },
    );
  const statusOf = async (name: string) => {
    const show = await replyflow(env, ['campaigns', 'show', name]);
    expect(show.code, show.stderr).toBe(0);
    return show.stdout;
  };

  it('pause, resume and cancel from the command line, each shown by show; after cancel nothing more is sent', async () => {
    const early = Array.from({ length: 10 }, (_, i) => `3361${String(8_300_000 + i)}`);
    const late = Array.from({ length: 10 }, (_, i) => `3361${String(8_400_000 + i)}`);
    const t1 = clock.now() + day;
    const t2 = t1 + 3_600_000;
    const file = join(dir, 'weekly.csv');
    writeFileSync(
      file,
      [
        'phone,lang,at',
        ...early.map((p) => `+${p},en,${new Date(t1).toISOString()}`),
        ...late.map((p) => `+${p},en,${new Date(t2).toISOString()}`),
      ].join('\n'),
    );
    const created = await replyflow(env, [
      'campaigns',
      'create',
      'weekly',
      '--bot',
      'survey',
      '--file',
      file,
      '--relative-to',
      'at',
    ]);
    expect(created.code, created.stderr).toBe(0);

    const paused = await replyflow(env, ['campaigns', 'pause', 'weekly']);
    expect(paused).toMatchObject({ code: 0, stdout: 'weekly (paris) is paused\n' });
    let show = await statusOf('weekly');
    expect(show).toMatch(/^status +paused$/m);
    expect(show).toMatch(/^scheduled +- +20$/m);
    // Its first recipients' time comes while it is paused: nothing starts.
    clock.set(t1);
    await loop.app.fireDueCampaigns!();
    await drained(early);
    expect(await smsCounts(early)).toEqual(early.map(() => 0));
    expect(await loop.store.campaignCounts({ location, name: 'weekly' })).toEqual({
      scheduled: 20,
    });

    const resumed = await replyflow(env, ['campaigns', 'resume', 'weekly']);
    expect(resumed).toMatchObject({ code: 0, stdout: 'weekly (paris) is active\n' });
    await loop.app.fireDueCampaigns!();
    await waitFor(async () => (await smsCounts(early)).every((n) => n >= 1), {
      timeout: 20_000,
      interval: 100,
      message: 'the first ten started once resumed',
    });
    show = await statusOf('weekly');
    expect(show).toMatch(/^status +active$/m);
    expect(show).toMatch(/^started +- +10$/m);
    expect(show).toMatch(/^scheduled +- +10$/m);

    const cancelled = await replyflow(env, ['campaigns', 'cancel', 'weekly']);
    expect(cancelled).toMatchObject({
      code: 0,
      stdout: 'weekly (paris) is cancelled: 10 recipients cancelled\n',
    });
    show = await statusOf('weekly');
    expect(show).toMatch(/^status +cancelled$/m);
    expect(show).toMatch(/^skipped +cancelled +10$/m);
    expect(show).toMatch(/^started +- +10$/m);
    // The others' time comes: nothing is sent to them, ever.
    clock.set(t2);
    await loop.app.fireDueCampaigns!();
    await drained(late);
    expect(await smsCounts(late)).toEqual(late.map(() => 0));
    for (const phone of late) {
      expect(await loop.store.getConversation({ location, phone })).toBeNull();
    }
    expect(await loop.store.campaignCounts({ location, name: 'weekly' })).toEqual({
      started: 10,
      'skipped:cancelled': 10,
    });
    const again = await replyflow(env, ['campaigns', 'resume', 'weekly']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^replyflow campaigns resume: CAMPAIGN_CONFLICT: /);
  }, 240_000);

  it('--time-zone-column: a recipient in another zone gets its send time on its own clock', async () => {
    const [paris, newYork, noZone] = ['33618500001', '33618500002', '33618500003'];
    const date = new Date(clock.now() + 2 * day).toISOString().slice(0, 10);
    const tenAt = (zone: string) => {
      const offset = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        timeZoneName: 'longOffset',
      })
        .formatToParts(new Date(`${date}T12:00:00Z`))
        .find((part) => part.type === 'timeZoneName')!
        .value.replace('GMT', '');
      return Date.parse(`${date}T10:00:00${offset || 'Z'}`);
    };
    const parisTen = tenAt('Europe/Paris');
    const newYorkTen = tenAt('America/New_York');
    expect(newYorkTen - parisTen).toBeGreaterThanOrEqual(5 * 3_600_000);
    const file = join(dir, 'zones.csv');
    writeFileSync(
      file,
      [
        'phone,lang,tz',
        `+${paris},en,Europe/Paris`,
        `+${newYork},en,America/New_York`,
        `+${noZone},en,`,
      ].join('\n'),
    );
    const create = [
      'campaigns',
      'create',
      'zones',
      '--bot',
      'survey',
      '--file',
      file,
      '--at',
      `${date}T10:00`,
      '--time-zone',
      'Europe/Paris',
      '--time-zone-column',
      'tz',
    ];
    // The dry run's first rows show each send time on the recipient's own clock.
    const dry = await replyflow(env, [...create, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(new RegExp(`^3 +336•••••002 +${date}T10:00:00-0[45]:00 `, 'm'));
    expect(dry.stdout).toMatch(new RegExp(`^2 +336•••••001 +${date}T10:00:00\\+0[12]:00 `, 'm'));
    const created = await replyflow(env, create);
    expect(created.code, created.stderr).toBe(0);
    const meta = (await loop.store.getCampaign({ location, name: 'zones' }))!;
    expect(meta.timeZoneColumn).toBe('tz');
    const recordOf = async (phone: string) =>
      (await loop.store.findRecipient(meta, phone))?.entry.record;
    expect(await recordOf(paris)).toMatchObject({ state: 'scheduled', due: parisTen });
    expect(await recordOf(noZone)).toMatchObject({ state: 'scheduled', due: parisTen });
    expect(await recordOf(newYork)).toMatchObject({
      state: 'scheduled',
      due: newYorkTen,
      timeZone: 'America/New_York',
    });

    // 10:00 in Paris: the Paris recipients start, New York's waits for 10:00 there.
    clock.set(parisTen);
    await loop.app.fireDueCampaigns!();
    await waitFor(async () => (await smsCounts([paris, noZone])).every((n) => n >= 1), {
      timeout: 20_000,
      interval: 100,
      message: 'the Paris recipients started at 10:00 in Paris',
    });
    await drained([newYork]);
    expect(await loop.bodiesTo(newYork)).toEqual([]);
    clock.set(newYorkTen - 1_000);
    await loop.app.fireDueCampaigns!();
    await drained([newYork]);
    expect(await loop.bodiesTo(newYork)).toEqual([]);
    clock.set(newYorkTen);
    await loop.app.fireDueCampaigns!();
    await loop.waitForBodies(newYork, 1, 20_000);
    expect((await loop.store.getConversation({ location, phone: newYork }))?.startedAt).toBe(
      newYorkTen,
    );
  }, 120_000);

  it('prints no phone number in full, on stdout or stderr', () => {
    const written = [
      ...appointmentPhones,
      '33618100001',
      '33618100002',
      '33618100003',
      '33618500001',
      '33618500002',
      '33618500003',
    ];
    expect(output.linesWithFullNumbers(written)).toEqual([]);
  });
});
