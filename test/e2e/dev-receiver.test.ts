import { resolve } from 'node:path';
import { pino } from 'pino';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/app/config.ts';
import { startDev } from '../../src/app/start-dev.ts';
import {
  browserAvailable,
  chromiumArgs,
  chromiumPath,
  screenshotPath,
} from '../support/browser.ts';
import { freePort } from '../support/free-port.ts';
import { waitFor } from '../support/wait-for.ts';

describe.skipIf(!browserAvailable())('the dev phone\u2019s sent events, in a real browser', () => {
  let dev: Awaited<ReturnType<typeof startDev>>;
  let browser: Browser;
  beforeAll(async () => {
    const config = await loadConfig({
      PORT: String(await freePort()),
      REPLYFLOW_BOTS_DIR: resolve('bots'),
      LOG_LEVEL: 'silent',
    });
    dev = await startDev(config, pino({ level: 'silent' }));
    browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
  });
  afterAll(async () => {
    await browser?.close();
    await dev?.close();
  });

  const post = (path: string, body: unknown) =>
    fetch(`${dev.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('shows appointment.confirmed live when the person answers "oui", newest first, with its JSON, and again after a reload', {
    timeout: 90_000,
  }, async () => {
    const phone = '33611224466';
    const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    const failed: string[] = [];
    // The live stream is cut by the reload below: not a failure of the page.
    page.on('requestfailed', (request) => {
      if (!new URL(request.url()).pathname.startsWith('/dev/events')) failed.push(request.url());
    });
    page.on('pageerror', (error) => failed.push(error.message));
    await page.goto(`${dev.url}/dev#${phone}`);
    const card = page.getByTestId('sent-events');
    await expect.poll(() => card.getByTestId('events-list').textContent()).toMatch(/No event yet/);

    const started = await post('/dev/conversations', {
      bot: 'appointment',
      phone,
      input: { name: 'Ana', at: '2030-12-06T10:00:00+01:00', place: 'Cabinet' },
    });
    expect(started.status).toBe(202);
    await waitFor(async () => (await post(`/dev/phones/${phone}/messages`, { body: 'oui' })).ok, {
      timeout: 20_000,
      message: 'the person answers oui',
    });

    // Came over the page's live stream: newest first, so the bot's outcome is above the start.
    const confirmed = card.locator('[data-type="appointment.confirmed"]');
    await confirmed.waitFor({ timeout: 20_000 });
    const types = () => card.getByTestId('event-type').allTextContents();
    await expect
      .poll(types, { timeout: 20_000 })
      .toEqual(expect.arrayContaining(['conversation.started', 'appointment.confirmed']));
    const order = await types();
    expect(order.indexOf('appointment.confirmed')).toBeLessThan(
      order.indexOf('conversation.started'),
    );
    const summary = await confirmed.locator('summary').textContent();
    expect(summary).toContain('appointment');
    expect(summary).toContain('336•••••466');
    expect(summary).not.toContain(phone);
    expect(await confirmed.locator('time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);

    // Opened, it shows the event as the receiver got it.
    await confirmed.locator('summary').click();
    const json = JSON.parse((await confirmed.getByTestId('event-json').textContent()) ?? '{}');
    expect(json).toMatchObject({
      type: 'appointment.confirmed',
      data: { bot: 'appointment', phone, maskedPhone: '336•••••466' },
    });
    expect(json.id).toMatch(/^evt_/);
    await page.screenshot({ path: screenshotPath('dev-receiver.png') });

    // The bot filter, and a reload that loses nothing.
    await page.getByLabel('Events of bot').selectOption('appointment');
    expect(await types()).toEqual(order);
    await page.reload();
    await card.locator('[data-type="appointment.confirmed"]').waitFor({ timeout: 10_000 });
    expect(await types()).toEqual(order);
    expect(failed).toEqual([]);
    await page.close();
  });

  it('fits a 360 px screen with events shown', { timeout: 60_000 }, async () => {
    const page = await browser.newPage({ viewport: { width: 360, height: 740 } });
    await page.goto(`${dev.url}/dev`);
    await page.getByTestId('sent-event').first().waitFor({ timeout: 15_000 });
    await page.getByTestId('sent-event').first().locator('summary').click();
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    await page.close();
  });
});
