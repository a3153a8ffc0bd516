import { readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import type { ConversationResult } from '../../../src/store/records.ts';
import { adminToken, dashboardApp, location, readToken } from './dashboard-app.ts';

const full = `Bearer ${adminToken}`;
const read = `Bearer ${readToken}`;
const pageDir = new URL('../../../src/admin/dashboard/page/', import.meta.url);

const result = (
  phone: string,
  fields: Record<string, unknown>,
  startedAt: string,
): ConversationResult => ({
  v: 1,
  location,
  phone,
  runId: `run-${phone.slice(-1)}`,
  bot: 'survey',
  botVersion: 'v1',
  startedAt: Date.parse(startedAt),
  endedAt: Date.parse(startedAt) + 60_000,
  endCode: 'completed',
  fields,
  campaign: { name: 'spring', row: phone },
});

const results = [
  result(
    '33612345601',
    { comment: '=HYPERLINK("http://x","click")', score: 9 },
    '2026-11-01T09:00:00Z',
  ),
  result(
    '33612345602',
    { comment: '+33 call me on 0699887766', score: -1 },
    '2026-11-02T09:00:00Z',
  ),
  result(
    '33612345603',
    { comment: '@SUM(A1)', note: '\tindented', other: '\rcr', minus: '-2+3' },
    '2026-11-03T09:00:00Z',
  ),
];

describe('the first screen', () => {
  it.each([
    '/admin',
    '/admin/results',
    `/admin/bots/${location}/survey`,
    '/admin/conversations/any-ref',
    '/admin/campaigns',
    `/admin/campaigns/${location}/spring`,
    '/admin/login',
  ])(
    '%s fits in 300 kB gzipped with every file it references, all of them from this server',
    async (path) => {
      const { app } = dashboardApp();
      const page = await request(app)
        .get(path)
        .set('accept', 'text/html')
        .set('authorization', full);
      expect(page.status).toBe(200);
      expect(page.type).toBe('text/html');
      const references = [...page.text.matchAll(/\b(?:src|href)="([^"]+)"/g)].map(
        ([, url]) => url!,
      );
      // Links to other pages are not loaded with this one; every file it loads is this server's.
      const assets = references.filter((url) => /\.(?:js|css|svg|png|ico|woff2?)$/.test(url));
      expect(assets.length).toBeGreaterThan(0);
      for (const url of assets) expect(url, url).toMatch(/^\/admin\//);
      const files = new Set<string>(assets);
      // The scripts' own imports count too, and theirs (a Set iterates what is added meanwhile).
      for (const url of files) {
        if (!url.endsWith('.js')) continue;
        const text = (await request(app).get(url).set('authorization', full)).text;
        for (const [, name] of text.matchAll(/from '\.\/([\w-]+\.js)'/g))
          files.add(`/admin/assets/${name}`);
      }
      let total = gzipSync(page.text).length;
      for (const url of files) {
        const answer = await request(app).get(url).set('authorization', full);
        expect(answer.status, url).toBe(200);
        total += gzipSync(answer.text).length;
      }
      expect(total).toBeLessThanOrEqual(300_000);
    },
  );

  it('names no other host in its HTML, scripts or styles, and runs no inline script', () => {
    for (const name of readdirSync(pageDir)) {
      const text = readFileSync(new URL(name, pageDir), 'utf8');
      expect(text, name).not.toMatch(/https?:\/\/|["'(=\s]\/\/[\w.-]/);
      if (name.endsWith('.html')) expect(text, name).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    }
  });

  it('is served under a default-src self policy, never framed or cached', async () => {
    const { app } = dashboardApp();
    for (const path of ['/admin', '/admin/results', '/admin/login', '/admin/assets/overview.js']) {
      const answer = await request(app).get(path).set('authorization', full);
      expect(answer.headers['content-security-policy'], path).toMatch(/^default-src 'self'/);
      expect(answer.headers['content-security-policy'], path).toContain("frame-ancestors 'none'");
      expect(answer.headers['cache-control'], path).toBe('no-store');
    }
  });

  it('reads each bot of each location and the campaigns from /admin/api/overview', async () => {
    const { app } = dashboardApp();
    const answer = await request(app).get('/admin/api/overview').set('authorization', read);
    expect(answer.status).toBe(200);
    expect(answer.body.locations).toEqual([location]);
    expect(answer.body.bots).toEqual([
      expect.objectContaining({
        location,
        bot: 'survey',
        active: expect.any(Number),
        today: expect.objectContaining({
          started: expect.any(Number),
          completed: expect.any(Number),
          opted_out: expect.any(Number),
          sent: expect.any(Number),
        }),
        week: expect.any(Object),
        total: expect.any(Object),
      }),
    ]);
    expect(answer.body.campaigns).toEqual([]);
  });
});

describe('the results', () => {
  const { app } = dashboardApp({ results });

  it('pages the JSON with every phone masked, within from and to', async () => {
    const first = await request(app)
      .get('/admin/api/results?bot=survey&limit=2')
      .set('authorization', full);
    expect(first.status).toBe(200);
    expect(first.body.results.map((r: { phone: string }) => r.phone)).toEqual([
      '336•••••601',
      '336•••••602',
    ]);
    expect(first.body.results[1].row).toBe('336•••••602');
    expect(first.body.results[1].fields.comment).toBe('+33 call me on 069••••766');
    expect(first.body.next).toBe(2);
    const second = await request(app)
      .get('/admin/api/results?bot=survey&limit=2&offset=2')
      .set('authorization', full);
    expect(second.body.results).toHaveLength(1);
    expect(second.body.next).toBeUndefined();
    const window = await request(app)
      .get('/admin/api/results?bot=survey&from=2026-11-02&to=2026-11-02')
      .set('authorization', full);
    expect(window.body.results.map((r: { runId: string }) => r.runId)).toEqual(['run-2']);
    expect(JSON.stringify([first.body, second.body])).not.toMatch(/336123456\d\d/);
  });

  it('answers 400 naming the field of a bad query', async () => {
    const answer = await request(app)
      .get('/admin/api/results?bot=survey&from=yesterday')
      .set('authorization', full);
    expect(answer.status).toBe(400);
    expect(answer.body.field).toBe('from');
    expect(
      (await request(app).get('/admin/api/results').set('authorization', full)).body.field,
    ).toBe('bot');
  });

  it('streams a CSV whose formula cells are escaped, phones masked unless the full token asks for them whole', async () => {
    const byDefault = await request(app)
      .get('/admin/api/results.csv?bot=survey')
      .set('authorization', full);
    expect(byDefault.status).toBe(200);
    expect(
      (parse(byDefault.text, { columns: true }) as Array<Record<string, string>>).map(
        (row) => row.phone,
      ),
    ).toEqual(['336•••••601', '336•••••602', '336•••••603']);
    expect(byDefault.text).not.toMatch(/336123456\d\d/);
    const refused = await request(app)
      .get('/admin/api/results.csv?bot=survey&phones=full')
      .set('authorization', read);
    expect([refused.status, refused.body.field]).toEqual([403, 'phones']);

    const whole = await request(app)
      .get('/admin/api/results.csv?bot=survey&phones=full')
      .set('authorization', full);
    expect(whole.status).toBe(200);
    expect(whole.type).toBe('text/csv');
    expect(whole.headers['content-disposition']).toBe('attachment; filename="survey-results.csv"');
    const rows = parse(whole.text, { columns: true }) as Array<Record<string, string>>;
    expect(rows.map((row) => row.phone)).toEqual(['33612345601', '33612345602', '33612345603']);
    expect(rows.map((row) => row.comment)).toEqual([
      `'=HYPERLINK("http://x","click")`,
      "'+33 call me on 0699887766",
      "'@SUM(A1)",
    ]);
    expect(rows[1]!.score).toBe("'-1");
    expect([rows[2]!.note, rows[2]!.other, rows[2]!.minus]).toEqual([
      "'\tindented",
      "'\rcr",
      "'-2+3",
    ]);

    const masked = await request(app)
      .get('/admin/api/results.csv?bot=survey&campaign=spring')
      .set('authorization', read);
    const maskedRows = parse(masked.text, { columns: true }) as Array<Record<string, string>>;
    expect(maskedRows.map((row) => [row.phone, row.row])).toEqual([
      ['336•••••601', '336•••••601'],
      ['336•••••602', '336•••••602'],
      ['336•••••603', '336•••••603'],
    ]);
    expect(masked.text).not.toMatch(/336123456\d\d|0699887766/);
  });
});
