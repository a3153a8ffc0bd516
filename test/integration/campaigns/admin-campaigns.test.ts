import type { Server } from 'node:http';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminRouter } from '../../../src/admin/create-admin-router.ts';
import type { LocationConfig } from '../../../src/app/config.ts';
import { createHardenedServer } from '../../../src/app/create-hardened-server.ts';
import { createHttpApp } from '../../../src/app/create-http-app.ts';
import { listenOn } from '../../../src/app/listen-on.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { systemClock } from '../../../src/scheduler/clock.ts';
import type { CampaignMeta } from '../../../src/store/campaign-records.ts';
import { createRedisStore } from '../../../src/store/redis/create-redis-store.ts';
import { expectNoFullPhoneNumber, LogCapture } from '../../support/log-capture.ts';
import { connectTestRedis, randomPrefix } from '../../support/redis.ts';
import { registry } from '../compliance/compliance-bots.ts';

const token = 'admin-0d4e1c9b7a3f52e86b1c0a9d7e4f2b35';
const location = 'paris';
const redis = connectTestRedis();
const prefix = randomPrefix('admin-campaigns');
const store = createRedisStore({ redis, prefix });
const logs = new LogCapture();
const logger = createLogger({ level: 'debug', destination: logs.stream });
const inAWeek = new Date(Date.now() + 7 * 86_400_000).toISOString();

/** 20,000 mobiles, and 150 rows among them that are no phone number. */
const phones = Array.from({ length: 20_000 }, (_, i) => `3361${String(5_000_000 + i)}`);
const badEvery = 133;

function csvRows(): string[] {
  return [
    'phone,name',
    ...phones.map((phone, i) => (i % badEvery === 5 ? `12${i},Bad ${i}` : `+${phone},Person ${i}`)),
  ];
}

async function serve(adminToken: string | undefined): Promise<{ server: Server; base: string }> {
  const server = createHardenedServer(
    createHttpApp({
      store,
      clock: systemClock,
      logger,
      secrets: new Map(),
      extra: [
        createAdminRouter({
          store,
          registry,
          clock: systemClock,
          config: {
            locations: [{ name: location, rateLimitPerSecond: 100 } as LocationConfig],
            adminToken,
          },
          logger,
        }),
      ],
    }),
  );
  return { server, base: await listenOn(server, 0, '127.0.0.1') };
}

let open: { server: Server; base: string };
let closed: { server: Server; base: string };
beforeAll(async () => {
  open = await serve(token);
  closed = await serve(undefined);
});
afterAll(async () => {
  for (const { server } of [open, closed]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await store.close();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.unlink(...keys);
  await redis.quit();
});

const admin = (path: string, init: RequestInit = {}, base = open.base) =>
  fetch(`${base}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, ...init.headers },
  });
// biome-ignore lint/suspicious/noExplicitAny: an answer's shape is what the expectations check.
const json = async (res: Response) => (await res.json()) as Record<string, any>;
/** Posts the rows as a stream of 100-row chunks: the route must not need the file whole. */
const upload = (query: string, rows: string[], type = 'text/csv') =>
  admin(`/admin/campaigns?${query}`, {
    method: 'POST',
    headers: { 'content-type': type },
    body: Readable.toWeb(
      Readable.from(
        Array.from({ length: Math.ceil(rows.length / 100) }, (_, n) =>
          Buffer.from(`${rows.slice(n * 100, n * 100 + 100).join('\n')}\n`),
        ),
      ),
    ) as ReadableStream,
    duplex: 'half',
  } as RequestInit);

describe('/admin/campaigns (real Redis, real HTTP on loopback, the server limits of production)', () => {
  it('answers 401 without the token and 403 when no token is configured, on every route', async () => {
    const routes: Array<[string, string]> = [
      ['POST', '/admin/campaigns?name=spring&bot=quiz'],
      ['GET', '/admin/campaigns'],
      ['GET', '/admin/campaigns/spring'],
      ['POST', '/admin/campaigns/spring/pause'],
      ['POST', '/admin/campaigns/spring/resume'],
      ['POST', '/admin/campaigns/spring/cancel'],
      ['GET', '/admin/campaigns/spring/results'],
    ];
    for (const [method, path] of routes) {
      const bare = await fetch(`${open.base}${path}`, { method });
      expect(bare.status, `${method} ${path}`).toBe(401);
      const wrong = await fetch(`${open.base}${path}`, {
        method,
        headers: { authorization: 'Bearer nope' },
      });
      expect(wrong.status, `${method} ${path}`).toBe(401);
      const off = await admin(path, { method }, closed.base);
      expect(off.status, `${method} ${path}`).toBe(403);
    }
  });

  it('refuses a bad request with 400 naming the field, or 415, and stores nothing', async () => {
    const rows = ['phone,name', '+33612345678,Ann'];
    const cases: Array<[string, string]> = [
      ['bot=quiz', 'name'],
      ['name=_api&bot=quiz', 'name'],
      ['name=spring', 'bot'],
      ['name=spring&bot=nope', 'bot'],
      ['name=spring&bot=quiz&window=25:00-26:00', 'window'],
      ['name=spring&bot=quiz&rate=fast', 'rate'],
      ['name=spring&bot=quiz&at=tomorrow', 'at'],
      ['name=spring&bot=quiz&offset=-24h', 'offset'],
      ['name=spring&bot=quiz&relative_to=at', 'relative_to'],
      ['name=spring&bot=quiz&dryRun=yes', 'dryRun'],
      ['name=spring&bot=quiz&timeZone=Mars/Olympus', 'timeZone'],
      ['name=spring&bot=quiz&location=lyon', 'location'],
    ];
    for (const [query, field] of cases) {
      const res = await upload(query, rows);
      const body = await json(res);
      expect({ query, status: res.status, field: body.field }).toEqual({
        query,
        status: 400,
        field,
      });
      expect(body.error).toEqual(expect.any(String));
    }
    const noPhone = await upload('name=spring&bot=quiz', ['mobile,name', '+33612345678,Ann']);
    expect(noPhone.status).toBe(400);
    expect((await json(noPhone)).error).toMatch(/phone/);
    const asJson = await upload('name=spring&bot=quiz', rows, 'application/json');
    expect(asJson.status).toBe(415);
    expect(await store.listCampaigns(location)).toEqual([]);
  });

  it('a dry run answers 200 with the totals, the exclusions and the first rows, and stores nothing', async () => {
    const rows = [
      'phone,name,at',
      '+33612345601,Ann,2030-12-06T09:00:00+01:00',
      '0612,Bad,2030-12-06T09:00:00+01:00',
      '+33612345602,Bob,someday',
      '+33612345601,Ann again,2030-12-06T10:00:00+01:00',
      '+33612345603,Cid,2020-12-06T10:00:00+01:00',
    ];
    const res = await upload(
      'name=spring&bot=quiz&relativeTo=at&offset=-24h&timeZone=Europe/Paris&dryRun=true',
      rows,
    );
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({
      dryRun: true,
      rows: 5,
      accepted: 1,
      excluded: 4,
      byReason: { bad_phone: 1, bad_date: 1, duplicate: 1, past_due: 1, opted_out: 0 },
      firstSendAt: '2030-12-05T08:00:00.000Z',
      errorCount: 4,
    });
    expect(body.preview[0]).toEqual({
      line: 2,
      phone: '336•••••601',
      at: '2030-12-05T09:00:00+01:00',
      timeZone: 'Europe/Paris',
      input: { name: 'Ann', at: '2030-12-06T09:00:00+01:00' },
    });
    expect(body.errors.map((e: { line: number; reason: string }) => [e.line, e.reason])).toEqual([
      [3, 'bad_phone'],
      [4, 'bad_date'],
      [5, 'duplicate'],
      [6, 'past_due'],
    ]);
    expect(body).not.toHaveProperty('campaign');
    expect(await store.getCampaign({ location, name: 'spring' })).toBeNull();
    expect((await admin('/admin/campaigns/spring')).status).toBe(404);
  });

  it('creates a campaign from a streamed 20,000-row CSV (201), imports it again (200), and refuses another bot under its name (409)', async () => {
    const rows = csvRows();
    const bad = phones.filter((_, i) => i % badEvery === 5).length;
    const query = `name=spring&bot=quiz&at=${encodeURIComponent(inAWeek)}&rate=20/s&window=09:00-19:00`;
    const created = await upload(query, rows);
    const body = await json(created);
    expect(created.status, JSON.stringify(body).slice(0, 300)).toBe(201);
    expect(body).toMatchObject({
      dryRun: false,
      rows: 20_000,
      accepted: 20_000 - bad,
      excluded: bad,
      byReason: { bad_phone: bad },
      imported: { added: 20_000, rescheduled: 0, unchanged: 0, cancelled: 0 },
      campaign: { name: 'spring', bot: 'quiz', status: 'active', ratePerSecond: 20 },
      errorCount: bad,
    });
    expect(bad).toBeGreaterThan(100);
    expect(body.errors).toHaveLength(100);
    expect(body.errors[0]).toMatchObject({ line: 7, reason: 'bad_phone' });

    const again = await upload(query, rows);
    expect(again.status).toBe(200);
    expect(await json(again)).toMatchObject({
      imported: { added: 0, unchanged: 20_000, cancelled: 0 },
      campaign: { generation: 2 },
    });
    const otherBot = await upload(query.replace('bot=quiz', 'bot=parrot'), rows.slice(0, 10));
    expect(otherBot.status).toBe(409);
    expect((await json(otherBot)).error).toMatch(/runs bot 'quiz'/);
  }, 120_000);

  it('lists, shows, pauses, resumes and cancels, with 404 and 409 where due', async () => {
    const meta = await store.getCampaign({ location, name: 'spring' });
    expect(meta).not.toBeNull();
    // The API's own campaign (its scheduled starts) is listed with ?all=true only.
    await store.saveCampaign({ ...(meta as CampaignMeta), name: '_api', bot: 'quiz' });
    const listed = await json(await admin('/admin/campaigns'));
    expect(listed.campaigns.map((c: { name: string }) => c.name)).toEqual(['spring']);
    expect(listed.campaigns[0]).toMatchObject({ bot: 'quiz', status: 'active', total: 20_000 });
    const all = await json(await admin('/admin/campaigns?all=true'));
    expect(all.campaigns.map((c: { name: string }) => c.name).sort()).toEqual(['_api', 'spring']);

    const shown = await json(await admin('/admin/campaigns/spring'));
    const bad = phones.filter((_, i) => i % badEvery === 5).length;
    expect(shown).toMatchObject({
      campaign: { name: 'spring', status: 'active' },
      total: 20_000,
      recipients: { scheduled: 20_000 - bad, 'skipped:bad_phone': bad },
      funnel: {},
    });

    const post = (path: string) => admin(path, { method: 'POST' });
    const paused = await post('/admin/campaigns/spring/pause');
    expect(paused.status).toBe(200);
    expect(await json(paused)).toMatchObject({ campaign: { status: 'paused' } });
    expect((await json(await admin('/admin/campaigns/spring'))).campaign.status).toBe('paused');
    const resumed = await post('/admin/campaigns/spring/resume');
    expect(await json(resumed)).toMatchObject({ campaign: { status: 'active' } });
    const cancelled = await post('/admin/campaigns/spring/cancel');
    expect(cancelled.status).toBe(200);
    expect(await json(cancelled)).toMatchObject({
      campaign: { status: 'cancelled' },
      cancelled: 20_000 - bad,
    });
    // Every recipient still waiting is cancelled; the bad rows stay counted as they were.
    expect((await json(await admin('/admin/campaigns/spring'))).recipients).toEqual({
      'skipped:cancelled': 20_000 - bad,
      'skipped:bad_phone': bad,
    });
    expect((await post('/admin/campaigns/spring/resume')).status).toBe(409);
    expect((await post('/admin/campaigns/spring/pause')).status).toBe(409);
    const reimport = await upload(`name=spring&bot=quiz&at=${inAWeek}`, csvRows().slice(0, 5));
    expect(reimport.status).toBe(409);
    expect((await post('/admin/campaigns/autumn/pause')).status).toBe(404);
    expect((await admin('/admin/campaigns/autumn')).status).toBe(404);
    expect((await admin('/admin/campaigns/autumn/results')).status).toBe(404);
    expect((await post('/admin/campaigns/_api/cancel')).status).toBe(400);
    expect((await admin('/admin/campaigns/bad%20name')).status).toBe(400);
  });

  it('gives a campaign’s results as CSV with its campaign and row columns', async () => {
    const res = await admin('/admin/campaigns/spring/results');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    // None of its recipients started (it was cancelled first): the header alone.
    expect((await res.text()).trimEnd()).toBe(
      'location,phone,bot,botVersion,runId,startedAt,endedAt,endCode,campaign,row',
    );
    const asJson = await admin('/admin/campaigns/spring/results?format=json');
    expect(await asJson.json()).toEqual([]);
  });

  it('writes no phone number in full to any log line', () => {
    expectNoFullPhoneNumber(logs, [...phones, '33612345601', '33612345602', '33612345603']);
  });
});
