import type { Server } from 'node:http';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminRouter } from '../../../src/admin/create-admin-router.ts';
import type { LocationConfig } from '../../../src/app/config.ts';
import { createHardenedServer } from '../../../src/app/create-hardened-server.ts';
import { createHttpApp } from '../../../src/app/create-http-app.ts';
import { listenOn } from '../../../src/app/listen-on.ts';
import { systemClock } from '../../../src/scheduler/clock.ts';
import { location, type ReplyLoop, startReplyLoop } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';
import { registry } from '../compliance/compliance-bots.ts';

const token = 'admin-3c9e0b1d2a4f6e8c7b5a3d1f9e0c2b4a';
const phones = Array.from({ length: 100 }, (_, i) => `3361${String(7_000_000 + i)}`);
const mine = new Set(phones);

describe('pause, resume and cancel of a running campaign (real time, real Redis, the emulator)', () => {
  let loop: ReplyLoop;
  let server: Server;
  let base: string;
  beforeAll(async () => {
    loop = await startReplyLoop({ registry });
    const app = createHttpApp({
      store: loop.store,
      clock: systemClock,
      logger: pino({ level: 'silent' }),
      secrets: new Map(),
      extra: [
        createAdminRouter({
          store: loop.store,
          registry,
          clock: systemClock,
          config: {
            locations: [{ name: location, rateLimitPerSecond: 1_000 } as LocationConfig],
            adminToken: token,
          },
          logger: pino({ level: 'silent' }),
        }),
      ],
    });
    server = createHardenedServer(app);
    base = await listenOn(server, 0, '127.0.0.1');
  });
  afterAll(async () => {
    server?.close();
    await loop?.close();
  });

  const admin = async (method: string, path: string, body?: string) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv' },
      ...(body !== undefined && { body }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  /** The campaign's SMS the emulator has accepted. */
  const sent = async () => {
    const res = await fetch(`${loop.emulator.url}/_emulator/messages?location=${location}`);
    return ((await res.json()) as Array<{ to: string }>).filter((sms) => mine.has(sms.to)).length;
  };
  /**
   * Waits until the count of SMS sent stopped moving (the same for 1 s), and says when it last
   * moved; then checks it stays so for 2 s more.
   */
  const settled = async (label: string) => {
    let last = await sent();
    let movedAt = Date.now();
    const count = await waitFor(
      async () => {
        const now = await sent();
        if (now !== last) {
          last = now;
          movedAt = Date.now();
          return false;
        }
        return Date.now() - movedAt >= 1_000 && { count: now, movedAt };
      },
      { timeout: 10_000, interval: 100, message: `the SMS stop after ${label}` },
    );
    const until = Date.now() + 2_000;
    while (Date.now() < until) {
      expect(await sent(), `SMS sent after ${label} settled`).toBe(count.count);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return count;
  };
  const show = async () =>
    (await admin('GET', '/admin/campaigns/flow')).body as {
      campaign: { status: string };
      recipients: Record<string, number>;
      total: number;
      funnel: Record<string, number>;
    };

  it('pause stops the sends within seconds, resume lets them flow again, and after cancel nothing more is ever sent; each is shown and the counts add up', async () => {
    const created = await admin(
      'POST',
      '/admin/campaigns?name=flow&bot=quiz&rate=5/s',
      ['phone', ...phones.map((phone) => `+${phone}`)].join('\n'),
    );
    expect(created.status).toBe(201);
    await waitFor(async () => (await sent()) >= 10, {
      timeout: 10_000,
      interval: 100,
      message: 'the first 10 SMS at 5/s',
    });

    const pausedAt = Date.now();
    const paused = await admin('POST', '/admin/campaigns/flow/pause');
    expect(paused).toMatchObject({ status: 200, body: { campaign: { status: 'paused' } } });
    const stop = await settled('pause');
    // The runner's buffer is about a second, the sender's a little more: "within seconds".
    expect(stop.movedAt - pausedAt).toBeLessThan(3_000);
    expect(stop.count).toBeLessThan(100);
    let report = await show();
    expect(report.campaign.status).toBe('paused');
    expect(report.recipients.started).toBe(stop.count);
    expect(report.recipients.started! + report.recipients.scheduled!).toBe(100);

    const resumed = await admin('POST', '/admin/campaigns/flow/resume');
    expect(resumed).toMatchObject({ status: 200, body: { campaign: { status: 'active' } } });
    await waitFor(async () => (await sent()) >= stop.count + 5, {
      timeout: 5_000,
      interval: 100,
      message: 'the sends flow again after resume',
    });
    expect((await show()).campaign.status).toBe('active');

    const cancelled = await admin('POST', '/admin/campaigns/flow/cancel');
    expect(cancelled).toMatchObject({ status: 200, body: { campaign: { status: 'cancelled' } } });
    const end = await settled('cancel');
    report = await show();
    expect(report.campaign.status).toBe('cancelled');
    expect(end.count).toBeLessThan(100);
    // Every recipient still waiting was cancelled; the started ones are the SMS sent.
    expect(report.recipients).toEqual({
      started: end.count,
      'skipped:cancelled': 100 - end.count,
    });
    expect(cancelled.body.cancelled).toBe(100 - end.count);
    expect(report.total).toBe(100);
    // Cancel is final: it cannot be resumed, and the runner never fires it again.
    expect((await admin('POST', '/admin/campaigns/flow/resume')).status).toBe(409);
    await loop.app.fireDueCampaigns!();
    expect(await sent()).toBe(end.count);
    // The funnel counts each started conversation's question as sent and delivered, from the
    // service's sms.status notifications.
    await waitFor(
      async () => {
        const { funnel } = await show();
        return funnel.sent === end.count && funnel.delivered === end.count;
      },
      { timeout: 10_000, interval: 100, message: `the funnel at ${end.count} sent and delivered` },
    );
  }, 60_000);
});
