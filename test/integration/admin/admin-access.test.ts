import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { dashboardPages } from '../../../src/admin/dashboard/create-dashboard-router.ts';
import { apiRoutes } from '../../../src/admin/dashboard/openapi.ts';
import { adminToken, dashboardApp, readToken } from './dashboard-app.ts';

/** A concrete path for a route: each `:param` filled. */
const concrete = (path: string) =>
  path.replace(':name', 'spring').replace(':key', 'booking-1').replace(':phone', '33612345678');

/** Every route but the login's own (the page, its CSS and the form's POST are public). */
const guarded = [
  ...apiRoutes
    .filter((route) => route.path !== '/admin/login')
    .map((route) => ({ method: route.method, path: concrete(route.path) })),
  ...dashboardPages
    .filter((page) => !page.path.startsWith('/admin/login'))
    .map((page) => ({ method: 'get' as const, path: page.example })),
];

describe('every /admin route wants a credential', () => {
  const { app } = dashboardApp();

  it('answers 401 to each API route and page without a token or cookie, and with a wrong one', async () => {
    expect(guarded.length).toBeGreaterThan(15);
    for (const { method, path } of guarded) {
      const bare = await request(app)[method](path);
      expect(bare.status, `${method} ${path}`).toBe(401);
      expect(bare.body.error, `${method} ${path}`).toContain('missing or wrong credential');
      const wrong = await request(app)
        [method](path)
        .set('authorization', `Bearer ${'x'.repeat(64)}`);
      expect(wrong.status, `${method} ${path} (wrong token)`).toBe(401);
      const cookie = await request(app)
        [method](path)
        .set('cookie', 'replyflow_admin=full.99999999999999.n.forged');
      expect(cookie.status, `${method} ${path} (forged cookie)`).toBe(401);
    }
  });

  it('answers a browser with a page that links to the login', async () => {
    for (const page of ['/admin', '/admin/results', '/admin/api/overview']) {
      const answer = await request(app).get(page).set('accept', 'text/html,*/*');
      expect(answer.status).toBe(401);
      expect(answer.type).toBe('text/html');
      expect(answer.text).toContain('href="/admin/login"');
    }
  });

  it('serves the login page and its CSS without a credential', async () => {
    const page = await request(app).get('/admin/login');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<form method="post" action="/admin/login">');
    expect((await request(app).get('/admin/login.css')).status).toBe(200);
  });

  it('answers 403 everywhere, the login too, when no admin token is configured', async () => {
    const off = dashboardApp({ adminToken: undefined, readToken: undefined }).app;
    for (const { method, path } of [
      ...guarded,
      { method: 'post' as const, path: '/admin/login' },
    ]) {
      const answer = await request(off)[method](path).set('authorization', `Bearer ${readToken}`);
      expect(answer.status, `${method} ${path}`).toBe(403);
    }
  });
});

describe('the read-only token', () => {
  const { app } = dashboardApp();
  const read = `Bearer ${readToken}`;

  it('reads every GET route', async () => {
    for (const path of [
      '/admin',
      '/admin/api/overview',
      '/admin/api/session',
      '/admin/campaigns',
      '/admin/openapi.json',
      '/admin/suppressions',
    ]) {
      const answer = await request(app).get(path).set('authorization', read);
      expect(answer.status, path).toBe(200);
    }
    const session = await request(app).get('/admin/api/session').set('authorization', read);
    expect(session.body).toEqual({ role: 'read', via: 'bearer' });
  });

  it('changes nothing: a campaign pause and a conversation start answer 403', async () => {
    const pause = await request(app)
      .post('/admin/campaigns/spring/pause')
      .set('authorization', read);
    expect(pause.status).toBe(403);
    expect(pause.body.error).toMatch(/^read-only token: /);
    const start = await request(app)
      .post('/admin/conversations')
      .set('authorization', read)
      .send({ bot: 'survey', phone: '+33612345678' });
    expect(start.status).toBe(403);
    expect(start.body.error).toMatch(/^read-only token: /);
    // Every change but the logout, which only clears the caller's own cookie.
    const changes = guarded.filter(
      (route) => route.method !== 'get' && route.path !== '/admin/logout',
    );
    for (const { method, path } of changes) {
      const answer = await request(app)[method](path).set('authorization', read);
      expect(answer.status, `${method} ${path}`).toBe(403);
    }
  });

  it('leaves the full token its changes (a pause of no campaign is 404, not 403)', async () => {
    const pause = await request(app)
      .post('/admin/campaigns/spring/pause')
      .set('authorization', `Bearer ${adminToken}`);
    expect(pause.status).toBe(404);
  });
});
