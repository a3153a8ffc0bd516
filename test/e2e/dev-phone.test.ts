import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pino } from 'pino';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/app/config.ts';
import { startDev } from '../../src/app/start-dev.ts';
import { freePort } from '../support/free-port.ts';

const chromiumPath = '/usr/bin/chromium';

describe.skipIf(!existsSync(chromiumPath))('the dev phone, in a real browser', () => {
  let dev: Awaited<ReturnType<typeof startDev>>;
  let browser: Browser;
  beforeAll(async () => {
    const port = await freePort();
    const config = await loadConfig({
      PORT: String(port),
      REPLYFLOW_BOTS_DIR: resolve('test/fixtures/echo-bot-only'),
      LOG_LEVEL: 'silent',
    });
    dev = await startDev(config, pino({ level: 'silent' }));
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--headless', '--no-sandbox', '--disable-background-networking'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await dev?.close();
  });

  it('starts a conversation and chats with the bot through the built-in emulator', {
    timeout: 60_000,
  }, async () => {
    const page = await browser.newPage();
    await page.goto(`${dev.url}/dev`);
    await expect.poll(() => page.locator('#bot option').count()).toBe(1);
    await page.fill('#phone', '06 12 34 56 78');
    await page.click('#start');
    await page
      .locator('.bubble.in', { hasText: 'Echo bot here. Say anything.' })
      .waitFor({ timeout: 15_000 });

    await page.fill('#body', 'hello from the browser');
    await page.click('#compose button[type=submit]');
    await page
      .locator('.bubble.out', { hasText: 'hello from the browser' })
      .waitFor({ timeout: 15_000 });
    await page
      .locator('.bubble.in', { hasText: '#1: hello from the browser' })
      .waitFor({ timeout: 15_000 });
    if (process.env.DEV_PHONE_SCREENSHOT)
      await page.screenshot({ path: process.env.DEV_PHONE_SCREENSHOT });
    expect(await page.locator('#status').textContent()).toBe('');
  });
});
