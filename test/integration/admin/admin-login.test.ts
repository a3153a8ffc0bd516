import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { adminToken, dashboardApp, readToken } from './dashboard-app.ts';

/** The `replyflow_admin=…` pair and the attributes of a login's Set-Cookie. */
function sessionOf(answer: request.Response): { pair: string; attributes: string[] } {
  const header = ([] as string[]).concat(answer.headers['set-cookie'] ?? []);
  const line = header.find((cookie) => cookie.startsWith('replyflow_admin='));
  expect(line, 'a session cookie').toBeDefined();
  const [pair = '', ...attributes] = line!.split(';').map((part) => part.trim());
  return { pair, attributes: attributes.map((part) => part.toLowerCase()) };
}

async function logIn(app: Parameters<typeof request>[0], token = adminToken) {
  const answer = await request(app).post('/admin/login').send({ token });
  expect(answer.status).toBe(200);
  return {
    cookie: sessionOf(answer).pair,
    csrf: answer.body.csrfToken as string,
    role: answer.body.role,
  };
}

describe('the dashboard login', () => {
  it('sets an HttpOnly, SameSite=Strict cookie on /admin from a form, and sends the browser to /admin', async () => {
    const { app } = dashboardApp();
    const answer = await request(app)
      .post('/admin/login')
      .type('form')
      .send({ token: `${adminToken}\n` });
    expect(answer.status).toBe(303);
    expect(answer.headers.location).toBe('/admin');
    const { pair, attributes } = sessionOf(answer);
    expect(attributes).toEqual(
      expect.arrayContaining(['httponly', 'samesite=strict', 'path=/admin']),
    );
    expect(attributes).not.toContain('secure');
    const page = await request(app).get('/admin').set('cookie', pair);
    expect(page.status).toBe(200);
    const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(page.text)?.[1];
    expect(csrf).toBeTruthy();
    const session = await request(app).get('/admin/api/session').set('cookie', pair);
    expect(session.body).toEqual({ role: 'full', via: 'cookie', csrfToken: csrf });
  });

  it('marks the cookie Secure when a trusted proxy says the request came over https, and only then', async () => {
    const behind = dashboardApp({ trustProxy: ['loopback'] }).app;
    const https = await request(behind)
      .post('/admin/login')
      .set('x-forwarded-proto', 'https')
      .send({ token: adminToken });
    expect(sessionOf(https).attributes).toContain('secure');
    const plain = await request(behind).post('/admin/login').send({ token: adminToken });
    expect(sessionOf(plain).attributes).not.toContain('secure');
    // No proxy trusted: anyone could send the header.
    const untrusted = dashboardApp().app;
    const spoofed = await request(untrusted)
      .post('/admin/login')
      .set('x-forwarded-proto', 'https')
      .send({ token: adminToken });
    expect(sessionOf(spoofed).attributes).not.toContain('secure');
  });

  it('answers a wrong token 401 with the login page saying so', async () => {
    const { app } = dashboardApp();
    const form = await request(app).post('/admin/login').type('form').send({ token: 'nope' });
    expect(form.status).toBe(401);
    expect(form.type).toBe('text/html');
    expect(form.text).toContain('wrong token');
    expect(form.headers['set-cookie']).toBeUndefined();
    const json = await request(app).post('/admin/login').send({ token: 'nope' });
    expect(json.status).toBe(401);
    expect(json.body).toEqual({ error: 'wrong token' });
  });

  it('refuses a cookie-borne change without the CSRF token, with a wrong one, or from another origin; lets it through with its own', async () => {
    const { app } = dashboardApp();
    const { cookie, csrf } = await logIn(app);
    const pause = () => request(app).post('/admin/campaigns/spring/pause').set('cookie', cookie);
    const none = await pause();
    expect(none.status).toBe(403);
    expect(none.body.error).toContain('x-csrf-token');
    expect((await pause().set('x-csrf-token', `${csrf.slice(0, -2)}AA`)).status).toBe(403);
    const foreign = await pause().set('x-csrf-token', csrf).set('origin', 'https://evil.example');
    expect(foreign.status).toBe(403);
    expect(foreign.body.error).toContain("origin 'https://evil.example' refused");
    // Through to the route: there is no campaign spring.
    expect((await pause().set('x-csrf-token', csrf)).status).toBe(404);
    const host = await pause()
      .set('x-csrf-token', csrf)
      .set('host', 'admin.example')
      .set('origin', 'http://admin.example');
    expect(host.status).toBe(404);
  });

  it('gives a read-only login reads only, and a logout ends the session in that browser', async () => {
    const { app } = dashboardApp();
    const { cookie, csrf, role } = await logIn(app, readToken);
    expect(role).toBe('read');
    expect((await request(app).get('/admin/api/overview').set('cookie', cookie)).status).toBe(200);
    const pause = await request(app)
      .post('/admin/campaigns/spring/pause')
      .set('cookie', cookie)
      .set('x-csrf-token', csrf);
    expect(pause.status).toBe(403);
    expect(pause.body.error).toMatch(/^read-only token: /);
    const out = await request(app)
      .post('/admin/logout')
      .set('cookie', cookie)
      .set('x-csrf-token', csrf);
    expect(out.status).toBe(200);
    expect(out.headers['set-cookie']?.[0]).toMatch(/^replyflow_admin=;.*Expires=Thu, 01 Jan 1970/);
  });

  it('keeps a session valid on another process with the same tokens, and ends it when a token changes', async () => {
    const { cookie } = await logIn(dashboardApp().app);
    const twin = dashboardApp().app;
    expect((await request(twin).get('/admin/api/overview').set('cookie', cookie)).status).toBe(200);
    const rotated = dashboardApp({ adminToken, readToken: `${readToken.slice(1)}7` }).app;
    expect((await request(rotated).get('/admin/api/overview').set('cookie', cookie)).status).toBe(
      401,
    );
  });

  it('limits failed logins per address: past 10, 429 even for the right token', async () => {
    const { app } = dashboardApp();
    for (let i = 0; i < 10; i++) {
      expect(
        (
          await request(app)
            .post('/admin/login')
            .send({ token: `wrong-${i}` })
        ).status,
      ).toBe(401);
    }
    const blocked = await request(app).post('/admin/login').send({ token: adminToken });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('refuses a login posted by another site’s page', async () => {
    const { app } = dashboardApp();
    const answer = await request(app)
      .post('/admin/login')
      .set('origin', 'https://evil.example')
      .type('form')
      .send({ token: adminToken });
    expect(answer.status).toBe(403);
    expect(answer.headers['set-cookie']).toBeUndefined();
  });
});
