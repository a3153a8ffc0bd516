import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import survey from '../../bots/survey.ts';
import { createBotRegistry } from '../../src/bot/bot-registry.ts';
import { gaugePaths } from '../../src/conversation/count-activity.ts';
import { createManualClock } from '../../src/scheduler/create-manual-clock.ts';
import {
  browserAvailable,
  chromiumArgs,
  chromiumPath,
  screenshotPath,
} from '../support/browser.ts';
import { location, type ReplyLoop, settle, startReplyLoop } from '../support/reply-loop.ts';
import { waitFor } from '../support/wait-for.ts';

const adminToken = '9f2c41d7b0e85a3f6c19d4e7a2b80f5c3e61d9a4b7c20e8f1a5d3c9b6e4f7a2d';
const registry = createBotRegistry([{ bot: survey, file: 'bots/survey.ts' }]);
const hour = 3_600_000;

/** The mixed survey: who does what. */
const phones = {
  /** Never answer: reminded after a day, expired after three (started first). */
  silent: ['33612350101', '33612350102', '33612350103', '33612350104'],
  /** Answer every question. */
  finish: ['33612350201', '33612350202', '33612350203'],
  /** Answer the first question, then nothing: still at the score question at the end. */
  stopAtScore: ['33612350301', '33612350302', '33612350303'],
  /** Text STOP at the first question. */
  optOut: ['33612350401', '33612350402'],
};
const everyone = Object.values(phones).flat();

/** What the page draws: each state group's and each transition's count (`data-count`). */
async function drawnCounts(
  page: Page,
  attribute: 'data-state' | 'data-edge',
): Promise<Record<string, number>> {
  return page.locator(`[${attribute}][data-count]`).evaluateAll(
    // Two transitions between the same states are drawn twice: their counts add up.
    (els, name) =>
      els.reduce<Record<string, number>>((counts, el) => {
        const key = el.getAttribute(name) ?? '';
        counts[key] = (counts[key] ?? 0) + Number(el.getAttribute('data-count'));
        return counts;
      }, {}),
    attribute,
  );
}

describe.skipIf(!browserAvailable())(
  'the dashboard, in a real browser, after a mixed survey',
  () => {
    let loop: ReplyLoop;
    let browser: Browser;
    const clock = createManualClock(Date.parse('2026-12-01T09:00:00Z'));
    /**
     * Waits until every phone's mailbox and outbox are empty and the emulator has nothing left
     * to do (status changes, webhook retries), before the clock may move: a notification
     * redelivered after a jump of a day would fall outside the applied log's window, which no
     * real retry schedule reaches.
     */
    const settleAll = async () => {
      for (const phone of everyone) await settle(loop, phone);
      await loop.emulatorIdle();
    };

    beforeAll(async () => {
      loop = await startReplyLoop({
        registry,
        clock,
        adminToken,
        // The spec's 4 s answer deadline, unscaled: scaled to 40 ms, a loaded machine's answers
        // would time out and the emulator would deliver the same replies again.
        emulator: { webhookRetry: { timeoutMs: 400_000 } },
      });
      browser = await chromium.launch({
        executablePath: chromiumPath,
        args: chromiumArgs,
      });
      // Day 0: the silent ones start. A day later they are reminded.
      for (const phone of phones.silent) await loop.start(phone, 'survey', { lang: 'en' });
      for (const phone of phones.silent) await loop.waitForBodies(phone, 1);
      await settleAll();
      clock.advance(25 * hour);
      await loop.app.fireDueTimers!();
      for (const phone of phones.silent) await loop.waitForBodies(phone, 2);
      await settleAll();
      // Day 2: the others start and answer (or not).
      clock.set(Date.parse('2026-12-03T09:00:00Z'));
      const others = [...phones.finish, ...phones.stopAtScore, ...phones.optOut];
      for (const phone of others) await loop.start(phone, 'survey', { lang: 'en' });
      for (const phone of others) await loop.waitForBodies(phone, 1);
      for (const phone of phones.finish) {
        for (const [n, answer] of ['1', '9', 'SKIP'].entries()) {
          await loop.reply(phone, answer);
          await loop.waitForBodies(phone, n + 2);
        }
      }
      for (const phone of phones.stopAtScore) {
        await loop.reply(phone, '2');
        await loop.waitForBodies(phone, 2);
      }
      for (const phone of phones.optOut) {
        await loop.reply(phone, 'STOP');
        await loop.waitForBodies(phone, 2);
      }
      await settleAll();
      // Day 3, 09:30: the silent ones expire (three days without an answer).
      clock.set(Date.parse('2026-12-04T09:30:00Z'));
      await loop.app.fireDueTimers!();
      await waitFor(async () => {
        for (const phone of phones.silent) {
          const record = await loop.store.getConversation({ location, phone });
          if (record?.status === 'active') return false;
        }
        return true;
      });
      await settleAll();
    }, 120_000);
    afterAll(async () => {
      await browser?.close();
      await loop?.close();
    });

    it('logs in, draws the real counts on each state and transition, and opens a transcript', {
      timeout: 120_000,
    }, async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const origin = new URL(loop.app.url!).origin;
      const requested: string[] = [];
      page.on('request', (request) => requested.push(request.url()));

      // Without a session the dashboard asks for a login.
      const first = await page.goto(`${origin}/admin`);
      expect(first?.status()).toBe(401);
      await page.goto(`${origin}/admin/login`);
      await page.getByLabel('Admin token').fill(adminToken);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForURL(`${origin}/admin`);

      // The first screen: the survey's row over 7 days.
      const row = page.locator('#bots tbody tr', { hasText: 'survey' });
      await page.getByRole('button', { name: '7 days' }).click();
      await expect
        .poll(async () => (await row.locator('td').allTextContents()).slice(0, 6))
        .toEqual([
          location,
          'survey',
          String(phones.stopAtScore.length),
          String(everyone.length),
          String(phones.finish.length),
          String(phones.optOut.length),
        ]);

      await page.screenshot({ path: screenshotPath('dashboard.png'), fullPage: true });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.screenshot({ path: screenshotPath('dashboard-390.png'), fullPage: true });
      await page.setViewportSize({ width: 1280, height: 900 });

      // The bot page: the counts drawn on each state are the conversations' real states.
      await row.getByRole('link', { name: 'survey' }).click();
      await page.waitForURL(`${origin}/admin/bots/${location}/survey`);
      await page.getByRole('button', { name: '7 days' }).click();
      const real: Record<string, number> = {};
      for (const phone of everyone) {
        const record = await loop.store.getConversation({ location, phone });
        if (record?.status !== 'active') continue;
        for (const path of gaugePaths(record)) if (path !== '*') real[path] = (real[path] ?? 0) + 1;
      }
      expect(real).toEqual({ answering: 3, 'answering.score': 3 });
      await expect
        .poll(async () => {
          const drawn = await drawnCounts(page, 'data-state');
          return Object.fromEntries(Object.entries(drawn).filter(([, n]) => n > 0));
        })
        .toEqual(real);
      // Each transition as taken: everyone entered the first question, 6 answered it, 3 the next.
      const edges = await drawnCounts(page, 'data-edge');
      const edge = (from: string, to: string) =>
        Object.entries(edges).find(([key]) => key === `${from}>${to}`)?.[1];
      expect(edge('answering.visit', 'answering.score')).toBe(
        phones.finish.length + phones.stopAtScore.length,
      );
      expect(edge('answering.score', 'answering.comment')).toBe(phones.finish.length);
      // Drop-offs at the first question: the silent ones expired there, two texted STOP; the
      // state is ringed and the table says how.
      const visit = page.locator('g[data-state="answering.visit"]');
      await expect
        .poll(() => visit.getAttribute('data-drop-offs'))
        .toBe(String(phones.silent.length + phones.optOut.length));
      const dropRow = page.locator('#dropoffs tr[data-state="answering.visit"] td');
      const header = await page.locator('#dropoffs thead th').allTextContents();
      const cells = await dropRow.allTextContents();
      const cell = (name: RegExp) => cells[header.findIndex((h) => name.test(h))];
      expect(cell(/expired/i)).toBe(String(phones.silent.length));
      expect(cell(/errored/i)).toBe('0');
      expect(cell(/opted/i)).toBe(String(phones.optOut.length));

      // Live: a conversation started while the page is open shows on its state without a reload.
      const latecomer = '33612350501';
      await loop.start(latecomer, 'survey', { lang: 'en' });
      await loop.waitForBodies(latecomer, 1);
      await expect
        .poll(async () => (await drawnCounts(page, 'data-state'))['answering.visit'] ?? 0, {
          timeout: 20_000,
        })
        .toBe(1);
      await page.screenshot({ path: screenshotPath('dashboard-bot.png'), fullPage: true });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.screenshot({ path: screenshotPath('dashboard-bot-390.png'), fullPage: true });
      await page.setViewportSize({ width: 1280, height: 900 });

      // A click on a state lists its conversations, masked; one opens its transcript.
      await page.locator('[data-state="answering.score"]').first().click();
      const listed = page.locator('#conversations [data-ref]');
      await expect.poll(() => listed.count()).toBe(phones.stopAtScore.length);
      expect((await listed.allTextContents()).join(' ')).not.toContain(phones.stopAtScore[0]);

      // Its transcript: the question, the answer, the next question and the reminder, in order;
      // each SMS delivered (the emulator reports it), the answer with the state it led to.
      await listed.first().getByRole('link').click();
      await page.waitForURL(/\/admin\/conversations\//);
      const items = page.locator('#transcript [data-direction]');
      await expect.poll(() => items.count()).toBe(4);
      const lines = await items.evaluateAll((els) =>
        els.map(
          (el) => `${el.getAttribute('data-direction')}:${el.getAttribute('data-status') ?? ''}`,
        ),
      );
      expect(lines.map((line) => line.split(':')[0])).toEqual(['out', 'in', 'out', 'out']);
      await expect
        .poll(async () =>
          (
            await items.evaluateAll((els) =>
              els.map(
                (el) =>
                  `${el.getAttribute('data-direction')}:${el.getAttribute('data-status') ?? ''}`,
              ),
            )
          ).filter((line) => line.startsWith('out')),
        )
        .toEqual(['out:delivered', 'out:delivered', 'out:delivered']);
      await expect
        .poll(() => page.locator('#transcript').textContent())
        .toContain('answering.score');
      await page.screenshot({ path: screenshotPath('dashboard-transcript.png'), fullPage: true });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.screenshot({
        path: screenshotPath('dashboard-transcript-390.png'),
        fullPage: true,
      });

      // Nothing from another host, ever.
      expect(
        requested.filter((url) => !url.startsWith(origin) && !url.startsWith('data:')),
      ).toEqual([]);
    });
  },
);
