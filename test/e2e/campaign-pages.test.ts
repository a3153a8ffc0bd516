import { createServer, type Server } from 'node:http';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenOn } from '../../src/app/listen-on.ts';
import { adminToken, dashboardApp, location } from '../integration/admin/dashboard-app.ts';
import { browserAvailable, chromiumArgs, chromiumPath } from '../support/browser.ts';

const file = ['phone,name', '+33 6 12 34 56 01,Ada', '0612,Nobody', '06 12 34 56 02,Grace'].join(
  '\n',
);

describe.skipIf(!browserAvailable())('the campaign pages, in a real browser', () => {
  let browser: Browser;
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer(dashboardApp().app);
    base = await listenOn(server, 0, '127.0.0.1');
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: chromiumArgs,
    });
  });
  afterAll(async () => {
    await browser?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('previews an upload, creates it, lists it, and pauses it from its page', async () => {
    const context = await browser.newContext({
      extraHTTPHeaders: { authorization: `Bearer ${adminToken}` },
    });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    // Every request the pages make answers (the browser's own favicon request aside).
    page.on('response', (answer) => {
      if (answer.status() >= 400 && !answer.url().endsWith('/favicon.ico')) {
        problems.push(`${answer.status()} ${answer.url()}`);
      }
    });
    await page.goto(`${base}/admin/campaigns`);
    await page.locator('#upload select[name="bot"] option').first().waitFor({ state: 'attached' });
    await page.fill('#upload input[name="name"]', 'spring');
    await page.setInputFiles('#upload input[name="file"]', {
      name: 'spring.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(file),
    });
    await page.click('#dry-run');
    await page.locator('#bad-rows tr[data-line="3"]').waitFor();
    expect(await page.locator('#campaign-list tbody tr').count()).toBe(0);
    await page.click('#create');
    await page.locator(`#campaign-list tr[data-campaign="${location}/spring"]`).waitFor();
    expect(
      await page.locator('#campaign-list [data-recipient-state="skipped"]').textContent(),
    ).toBe('1');

    await page.click(`#campaign-list a[href="/admin/campaigns/${location}/spring"]`);
    await page.locator('[data-recipient-state="skipped:bad_phone"]').waitFor();
    await page.locator('#progress-chart text').waitFor();
    await expect.poll(() => page.locator('#pause').isEnabled()).toBe(true);
    await page.click('#pause');
    await expect.poll(() => page.locator('#status').textContent()).toBe('paused');
    expect(await page.locator('#resume').isEnabled()).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);
});
