import { resolve } from 'node:path';
import { pino } from 'pino';
import { type Browser, chromium, type Page } from 'playwright-core';
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

/** Every bubble and notice of the thread, top to bottom, as `kind: text`. */
async function threadLines(page: Page): Promise<string[]> {
  return page
    .getByTestId('thread')
    .locator('[data-seq]')
    .evaluateAll((els) =>
      els.map((el) => {
        const bubble = el.querySelector('.bubble');
        return `${el.getAttribute('data-testid')}: ${(bubble ?? el).textContent}`;
      }),
    );
}

/** The highlighted states of the statechart. */
async function activeStates(page: Page): Promise<string[]> {
  return page
    .getByTestId('statechart')
    .locator('g[data-active="true"]')
    .evaluateAll((els) => els.map((el) => el.getAttribute('data-state') ?? ''));
}

describe.skipIf(!browserAvailable())('the dev phone, in a real browser', () => {
  let dev: Awaited<ReturnType<typeof startDev>>;
  let browser: Browser;
  beforeAll(async () => {
    const port = await freePort();
    const config = await loadConfig({
      PORT: String(port),
      REPLYFLOW_BOTS_DIR: resolve('bots'),
      LOG_LEVEL: 'silent',
    });
    dev = await startDev(config, pino({ level: 'silent' }));
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: chromiumArgs,
    });
  });
  afterAll(async () => {
    await browser?.close();
    await dev?.close();
  });

  it('starts the appointment bot with an input, shows the answer to "oui" delivered and the state change, and keeps both sides across a reload', {
    timeout: 90_000,
  }, async () => {
    const page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
    await page.goto(`${dev.url}/dev`);
    await page.getByLabel('Add a number').fill('+44 7911 123456');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    // International numbers, formatted by libphonenumber-js.
    await expect.poll(() => page.getByTestId('phone-title').textContent()).toBe('+44 7911 123456');
    await page.getByLabel('Bot', { exact: true }).selectOption('appointment');
    // The form is prefilled from the bot's example input when it has one: keep its shape (the
    // reference bots may change), with the person's name set to Ana.
    const prefilled = JSON.parse((await page.getByLabel('Start input').inputValue()) || '{}');
    const example = typeof prefilled === 'object' && prefilled !== null ? prefilled : {};
    const nameKeys = Object.keys(example).filter((k) => /name|patient/i.test(k));
    const input = {
      at: 'Tuesday 2 December at 10:30',
      ...example,
      ...Object.fromEntries(
        (nameKeys.length ? nameKeys : ['name', 'patient']).map((k) => [k, 'Ana']),
      ),
    };
    await page.getByLabel('Start input').fill(JSON.stringify(input));
    await page.getByRole('button', { name: 'Start conversation' }).click();

    const first = page.getByTestId('sms').first();
    await expect
      .poll(() => first.locator('.bubble').textContent(), { timeout: 15_000 })
      .toMatch(/Ana/);
    await expect
      .poll(() => first.getAttribute('data-status'), { timeout: 15_000 })
      .toBe('delivered');
    await expect.poll(() => activeStates(page), { timeout: 15_000 }).not.toEqual([]);
    const before = await activeStates(page);

    await page.getByRole('textbox', { name: 'Message' }).fill('oui');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByTestId('reply').filter({ hasText: 'oui' }).waitFor({ timeout: 15_000 });
    const answer = page.getByTestId('sms').nth(1);
    await answer.waitFor({ timeout: 15_000 });
    await expect
      .poll(() => answer.getAttribute('data-status'), { timeout: 15_000 })
      .toBe('delivered');
    expect(await answer.getByTestId('sms-status').textContent()).toBe('delivered');
    expect(await answer.locator('.meta').textContent()).toMatch(/1 part.*GSM-7.*price 0\.05/);
    await expect.poll(() => activeStates(page), { timeout: 15_000 }).not.toEqual(before);
    expect(await activeStates(page)).not.toEqual([]);

    // The true order: the question, "oui", then the answer, whatever notices sit between.
    const order = (lines: string[]) => lines.filter((l) => !l.startsWith('notice'));
    const seen = order(await threadLines(page));
    expect(seen).toHaveLength(3);
    expect(seen[1]).toBe('reply: oui');
    expect(seen[0]).toMatch(/^sms: .*Ana/);
    expect(seen[2]).toMatch(/^sms: /);

    await page.reload();
    await page.getByTestId('reply').filter({ hasText: 'oui' }).waitFor({ timeout: 15_000 });
    await expect.poll(async () => order(await threadLines(page))).toEqual(seen);
    await expect.poll(() => activeStates(page)).not.toEqual(before);
    expect(await page.getByTestId('context').textContent()).toMatch(/Ana/);

    await page.screenshot({ path: screenshotPath('dev-phone.png') });
    await page.close();
  });

  it('fits a 360 px screen: long messages wrap inside their bubble and nothing overflows', {
    timeout: 60_000,
  }, async () => {
    const page = await browser.newPage({ viewport: { width: 360, height: 740 } });
    await page.goto(`${dev.url}/dev#447911123456`);
    await page.getByTestId('reply').first().waitFor({ timeout: 15_000 });
    const long = `${'A long message that keeps going. '.repeat(12)}end`;
    await page.getByRole('textbox', { name: 'Message' }).fill(long);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const bubble = page.getByTestId('reply').filter({ hasText: 'keeps going' }).locator('.bubble');
    await bubble.waitFor({ timeout: 15_000 });
    // The page draws again on every status change: measure once the bubble holds still.
    await expect.poll(() => bubble.boundingBox()).not.toBeNull();
    const box = (await bubble.boundingBox())!;
    const thread = (await page.getByTestId('thread').boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(thread.x);
    expect(box.x + box.width).toBeLessThanOrEqual(thread.x + thread.width);
    expect(box.height).toBeGreaterThan(60); // wrapped over several lines
    for (const width of [360, 375]) {
      await page.setViewportSize({ width, height: 740 });
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
        width,
      );
    }
    if (process.env.DEV_PHONE_MOBILE_SCREENSHOT) {
      await page.screenshot({ path: process.env.DEV_PHONE_MOBILE_SCREENSHOT, fullPage: true });
    }
    await page.close();
  });

  it('explains the short code, broadcasts so a keyword can be answered, fails the next delivery with the reason picked, resets the number, sends STOP and moves the clock', {
    timeout: 60_000,
  }, async () => {
    const bots = (await (await fetch(`${dev.url}/dev/bots`)).json()) as Array<{
      keywords: string[];
    }>;
    const keyword = bots.find((b) => b.keywords.length > 0)!.keywords[0]!.toUpperCase();
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(`${dev.url}/dev`);
    await page.getByLabel('Add a number').fill('06 98 76 54 32');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await expect
      .poll(() => page.getByTestId('phone-title').textContent())
      .toBe('+33 6 98 76 54 32');
    expect(await page.locator('.explain').textContent()).toMatch(/no message has reached/);

    // A keyword from a number that got nothing from the short code: kept, marked, explained.
    await page.getByRole('textbox', { name: 'Message' }).fill(keyword);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const refused = page.getByTestId('reply').filter({ hasText: keyword });
    await refused.waitFor({ timeout: 15_000 });
    expect(await refused.locator('.meta').textContent()).toMatch(
      /not delivered: no message has reached/,
    );

    await page.getByLabel('Failure reason').selectOption('EXPIRED');
    await page.getByRole('button', { name: 'Fail next delivery' }).click();
    await expect.poll(() => page.getByTestId('armed').textContent()).toMatch(/EXPIRED/);
    await page.getByRole('button', { name: 'Broadcast' }).click();
    const failed = page.getByTestId('sms').first();
    await expect
      .poll(() => failed.getAttribute('data-status'), { timeout: 15_000 })
      .toBe('errored');
    expect(await failed.getByTestId('sms-status').textContent()).toBe('errored · EXPIRED');
    // The one-shot failure was used: it is no longer shown as armed.
    await expect.poll(() => page.getByTestId('armed').textContent()).toBe('');

    await page.getByRole('button', { name: 'Broadcast' }).click();
    const news = page.getByTestId('sms').nth(1);
    await expect
      .poll(() => news.getAttribute('data-status'), { timeout: 15_000 })
      .toBe('delivered');
    await page.getByRole('textbox', { name: 'Message' }).fill(keyword);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await expect
      .poll(() => page.getByTestId('conversation-status').textContent(), { timeout: 15_000 })
      .toMatch(/active|done/);
    expect(await page.getByTestId('bot-id').textContent()).not.toBe('');

    // Reset ends the conversation and clears the thread.
    await page.getByRole('button', { name: 'Reset' }).click();
    await expect
      .poll(() => page.getByTestId('conversation-status').textContent(), { timeout: 15_000 })
      .toBe('done');
    expect(await page.getByTestId('notice').first().textContent()).toMatch(/reset/);

    // STOP: the opt-out confirmation arrives, and the panel says the number opted out.
    await page.getByRole('button', { name: 'Send STOP' }).click();
    await page.getByTestId('reply').filter({ hasText: 'STOP' }).waitFor({ timeout: 15_000 });
    await page.getByTestId('opted-out').waitFor({ timeout: 15_000 });
    await page.getByTestId('sms').first().waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Start conversation' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toMatch(/opted out.*START/);

    // The dev clock moves a day ahead: the page shows it, and the thread notes it.
    const devNow = async () =>
      ((await (await fetch(`${dev.url}/dev/state`)).json()) as { now: number }).now;
    const before = await devNow();
    await page.getByRole('button', { name: '+24 h' }).click();
    await page.getByTestId('notice').filter({ hasText: 'clock moved forward 24h' }).waitFor();
    expect((await devNow()) - before).toBeGreaterThanOrEqual(24 * 3_600_000);
    await page.close();
  });

  it('draws the appointment statechart legibly at 1280 px: labels of 11 px and more, the reminders as timers, guards by name or source, zoom and pan', {
    timeout: 90_000,
  }, async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${dev.url}/dev`);
    await page.getByLabel('Add a number').fill('+33 6 44 55 66 77');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await expect
      .poll(() => page.getByTestId('phone-title').textContent())
      .toBe('+33 6 44 55 66 77');
    await page.getByLabel('Bot', { exact: true }).selectOption('appointment');
    await page.getByRole('button', { name: 'Start conversation' }).click();
    await expect
      .poll(() => activeStates(page), { timeout: 15_000 })
      .toEqual(['open', 'open.asking']);
    const chart = page.getByTestId('statechart');
    // Found and measured in one go, inside the box (which stays): a locator's `evaluateAll`
    // finds the elements first and measures them in a second step, and a live update that
    // draws the chart again in between leaves it measuring detached labels, 0 px high.
    const labels = () =>
      chart.evaluate((el) =>
        [...el.querySelectorAll('text')].map((text) => ({
          text: text.textContent ?? '',
          height: text.getBoundingClientRect().height,
        })),
      );
    const drawn = await labels();
    expect(drawn.length).toBeGreaterThan(20);
    for (const label of drawn) {
      expect(label.height, `"${label.text}" is ${label.height} px high`).toBeGreaterThanOrEqual(11);
    }
    // Each question's reminder, a timer that stays: a loop on the state, labelled `after …`.
    const reminder = chart.locator('g[data-edge="open.asking>open.asking"] text');
    expect(await reminder.textContent()).toMatch(/^after reminder\[!context\.reminded\]$/);
    // Guards by name (saidYes, the bot's saidCancel), inline ones by their source: no `[guard]`.
    const texts = drawn.map((label) => label.text);
    expect(texts.join('\n')).toMatch(/\[saidYes\]/);
    expect(texts.join('\n')).toMatch(/\[saidCancel\]/);
    for (const text of texts) expect(text).not.toMatch(/\[guard\]/);
    // The active state is scrolled into the box (measured in one go: each live update draws
    // the chart again).
    const measure = () =>
      chart.evaluate((el) => {
        type Boxed = {
          getBoundingClientRect(): { x: number; y: number; width: number; height: number };
        };
        const rect = (node: Boxed | null) => {
          const r = node!.getBoundingClientRect();
          return { x: r.x, y: r.y, width: r.width, height: r.height };
        };
        return {
          box: rect(el),
          svg: rect(el.querySelector('svg')),
          asking: rect(el.querySelector('g[data-state="open.asking"] rect')),
        };
      });
    const { box, asking } = await measure();
    expect(asking.x).toBeGreaterThanOrEqual(box.x);
    expect(asking.x + asking.width).toBeLessThanOrEqual(box.x + box.width);

    // Zoom: the whole chart fits the box, then back to 100 %.
    await page.getByRole('button', { name: 'Fit' }).click();
    expect(Number.parseInt((await page.getByTestId('chart-zoom').textContent())!, 10)).toBeLessThan(
      100,
    );
    expect((await measure()).svg.width).toBeLessThanOrEqual(box.width);
    await page.getByTestId('chart-zoom').click();
    expect(await page.getByTestId('chart-zoom').textContent()).toBe('100 %');
    // Drag to pan.
    const before = await chart.evaluate((el) => el.scrollLeft);
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(
      box.x + box.width / 2 + (before > 0 ? 120 : -120),
      box.y + box.height / 2,
      {
        steps: 4,
      },
    );
    await page.mouse.up();
    expect(await chart.evaluate((el) => el.scrollLeft)).not.toBe(before);

    // Expanded over the window, the whole appointment chart shows at 100 %, legible.
    await page.getByRole('button', { name: 'Expand' }).click();
    const expanded = await measure();
    expect(expanded.svg.width).toBeLessThanOrEqual(expanded.box.width);
    for (const label of await labels()) {
      expect(label.height, `"${label.text}" is ${label.height} px high`).toBeGreaterThanOrEqual(11);
    }
    await page.screenshot({ path: screenshotPath('dev-phone-appointment.png') });
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('button', { name: 'Expand' }).count()).toBe(1);
    await page.close();
  });

  it('computes the example input when the form is shown and again when the clock moves: after +3d it still starts the appointment', {
    timeout: 90_000,
  }, async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(`${dev.url}/dev`);
    await page.getByLabel('Add a number').fill('+33 6 55 66 77 88');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await expect
      .poll(() => page.getByTestId('phone-title').textContent())
      .toBe('+33 6 55 66 77 88');
    await page.getByLabel('Bot', { exact: true }).selectOption('appointment');
    const example = async () =>
      JSON.parse((await page.getByLabel('Start input').inputValue()) || '{}') as { at?: string };
    await expect.poll(async () => (await example()).at).toBeTypeOf('string');
    const first = Date.parse((await example()).at!);

    await page.getByLabel('Move the clock by').fill('3d');
    await page.getByRole('button', { name: 'Advance' }).click();
    await page.getByTestId('notice').filter({ hasText: 'clock moved forward 3d' }).waitFor();
    // The form, untouched, follows the clock: the appointment is still ahead of it.
    await expect
      .poll(async () => Date.parse((await example()).at!) - first)
      .toBeGreaterThanOrEqual(3 * 86_400_000 - 3_600_000);
    const devNow = ((await (await fetch(`${dev.url}/dev/state`)).json()) as { now: number }).now;
    expect(Date.parse((await example()).at!)).toBeGreaterThan(devNow);

    await page.getByRole('button', { name: 'Start conversation' }).click();
    await expect
      .poll(() => page.getByTestId('conversation-status').textContent(), { timeout: 15_000 })
      .toBe('active');
    await expect.poll(() => page.getByTestId('state').textContent()).toBe('open.asking');
    expect(await page.getByTestId('sms').first().locator('.bubble').textContent()).toMatch(
      /Bonjour Ana/,
    );

    // Changed by the developer, the input is theirs: a clock move leaves it.
    const mine = JSON.stringify({ name: 'Bo', at: '2031-01-01T10:00:00+01:00', place: 'Ici' });
    await page.getByLabel('Start input').fill(mine);
    await page.getByRole('button', { name: '+1 h' }).click();
    await page.getByTestId('notice').filter({ hasText: 'clock moved forward 1h' }).waitFor();
    expect(await page.getByLabel('Start input').inputValue()).toBe(mine);
    await page.close();
  });
});
