import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { adminToken, dashboardApp, location } from './dashboard-app.ts';

const full = `Bearer ${adminToken}`;
const browser = 'text/html,application/xhtml+xml,*/*;q=0.8';

async function logIn(app: Parameters<typeof request>[0]) {
  const answer = await request(app).post('/admin/login').send({ token: adminToken });
  const cookie = ([] as string[])
    .concat(answer.headers['set-cookie'] ?? [])
    .find((line) => line.startsWith('replyflow_admin='))!
    .split(';')[0]!;
  return { cookie, csrf: answer.body.csrfToken as string };
}

/** The recipients of a dry run: two good rows, a phone too short on line 3, a duplicate on 5. */
const file = [
  'phone,name,lang',
  '+33 6 12 34 56 01,Ada,fr',
  '0612,Nobody,fr',
  '06 12 34 56 02,Grace,en',
  '+33 6 12 34 56 02,Grace again,en',
].join('\n');

describe('the campaign pages', () => {
  it('serve a browser the list and a campaign’s page, and leave the JSON API to anyone else', async () => {
    const { app } = dashboardApp();
    const list = await request(app)
      .get('/admin/campaigns')
      .set('authorization', full)
      .set('accept', browser);
    expect(list.status).toBe(200);
    expect(list.type).toBe('text/html');
    expect(list.headers['content-security-policy']).toMatch(/^default-src 'self'/);
    expect(list.text).toContain('id="campaign-list"');
    expect(list.text).toContain('<form id="upload"');
    const json = await request(app).get('/admin/campaigns').set('authorization', full);
    expect(json.type).toBe('application/json');
    expect(json.body).toEqual({ campaigns: [] });

    const page = await request(app)
      .get(`/admin/campaigns/${location}/spring`)
      .set('authorization', full)
      .set('accept', browser);
    expect(page.status).toBe(200);
    for (const id of ['progress-chart', 'pause', 'resume', 'cancel', 'recipients', 'funnel']) {
      expect(page.text).toContain(`id="${id}"`);
    }
    // Not a location: the results of campaign 'spring' (none here), as before the pages.
    const results = await request(app)
      .get('/admin/campaigns/spring/results')
      .set('authorization', full)
      .set('accept', browser);
    expect(results.status).toBe(404);
    expect(results.type).toBe('application/json');
    // The first screen's and the results page's headers link to the list.
    for (const path of ['/admin', '/admin/results']) {
      const text = (await request(app).get(path).set('authorization', full)).text;
      expect(text, path).toContain('href="/admin/campaigns"');
    }
  });

  it('fit in 300 kB gzipped each, with every file they load', async () => {
    const { app } = dashboardApp();
    for (const path of ['/admin/campaigns', `/admin/campaigns/${location}/spring`]) {
      const page = await request(app).get(path).set('authorization', full).set('accept', browser);
      const files = new Set(
        [...page.text.matchAll(/\b(?:src|href)="(\/admin\/assets\/[^"]+)"/g)].map(([, u]) => u!),
      );
      for (const url of [...files].filter((u) => u.endsWith('.js'))) {
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
      expect(files.size, path).toBeGreaterThanOrEqual(4);
      expect(total, path).toBeLessThanOrEqual(300_000);
    }
  });

  it('answers a campaign’s progress 404 when there is no such campaign or location, 400 for a bad name', async () => {
    const { app } = dashboardApp();
    const get = (path: string) => request(app).get(path).set('authorization', full);
    expect((await get(`/admin/api/campaigns/${location}/spring/progress`)).status).toBe(404);
    expect((await get('/admin/api/campaigns/lyon/spring/progress')).status).toBe(404);
    expect((await get(`/admin/api/campaigns/${location}/bad%20name/progress`)).status).toBe(400);
  });

  it('previews an upload as the page does (cookie and CSRF): the report with each bad row’s line, and nothing created', async () => {
    const { app, store } = dashboardApp();
    const { cookie, csrf } = await logIn(app);
    const dryRun = `/admin/campaigns?${new URLSearchParams({ location, bot: 'survey', name: 'spring', dryRun: 'true' })}`;
    const before = (await request(app).get('/admin/api/overview').set('cookie', cookie)).body;

    const refused = await request(app)
      .post(dryRun)
      .set('cookie', cookie)
      .set('content-type', 'text/csv')
      .send(file);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toContain('x-csrf-token');

    const preview = await request(app)
      .post(dryRun)
      .set('cookie', cookie)
      .set('x-csrf-token', csrf)
      .set('content-type', 'text/csv')
      .send(file);
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({
      dryRun: true,
      rows: 4,
      accepted: 2,
      excluded: 2,
      errorCount: 2,
      byReason: { bad_phone: 1, duplicate: 1 },
    });
    expect(preview.body.errors).toEqual([
      expect.objectContaining({ line: 3, reason: 'bad_phone' }),
      expect.objectContaining({
        line: 5,
        reason: 'duplicate',
        message: expect.stringContaining('336•••••602'),
      }),
    ]);
    expect(JSON.stringify(preview.body)).not.toMatch(/3361234560\d/);

    const after = (await request(app).get('/admin/api/overview').set('cookie', cookie)).body;
    expect(after.campaigns).toEqual(before.campaigns);
    expect(await store.listCampaigns(location)).toEqual([]);
    expect((await request(app).get('/admin/campaigns/spring').set('cookie', cookie)).status).toBe(
      404,
    );
  });
});
