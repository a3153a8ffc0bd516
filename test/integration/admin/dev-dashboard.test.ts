import { resolve } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/app/config.ts';
import { type RunningDev, startDev } from '../../../src/app/start-dev.ts';
import { requestWithHost } from '../../support/request-with-host.ts';

describe('replyflow dev serves the dashboard to this machine without a login', () => {
  let running: RunningDev;
  let port: string;
  beforeAll(async () => {
    const config = await loadConfig({
      PORT: '0',
      REPLYFLOW_BOTS_DIR: resolve('test/fixtures/echo-bot-only'),
      LOG_LEVEL: 'silent',
    });
    running = await startDev(config, pino({ level: 'silent' }), { watch: false });
    port = new URL(running.url).port;
  });
  afterAll(() => running?.close());

  it('answers /admin and its API from loopback with full access, no token configured', async () => {
    const page = await fetch(`${running.url}/admin`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'self'/);
    const session = await (await fetch(`${running.url}/admin/api/session`)).json();
    expect(session).toEqual({ role: 'full', via: 'local' });
    const overview = (await (await fetch(`${running.url}/admin/api/overview`)).json()) as {
      bots: Array<{ location: string; bot: string }>;
    };
    expect(overview.bots.map((row) => row.bot)).toEqual(['echo']);
  });

  it('refuses a page of another name (DNS rebinding) and a change sent by another site', async () => {
    for (const path of ['/admin', '/admin/api/overview', '/admin/api/results.csv?bot=echo']) {
      const answer = await requestWithHost(`${running.url}${path}`, `evil.example:${port}`);
      expect(answer.status, path).toBe(403);
      expect(answer.body.error.code).toBe('HOST_NOT_ALLOWED');
    }
    const crossSite = await requestWithHost(
      `${running.url}/admin/campaigns/spring/pause`,
      `127.0.0.1:${port}`,
      {
        method: 'POST',
        headers: { origin: 'https://evil.example' },
      },
    );
    expect(crossSite.status).toBe(403);
  });
});
