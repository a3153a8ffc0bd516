import { pino } from 'pino';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { createAdminRouter } from '../../../src/admin/create-admin-router.ts';
import type { LocationConfig } from '../../../src/app/config.ts';
import { createHttpApp } from '../../../src/app/create-http-app.ts';
import { funnelCounters } from '../../../src/conversation/campaign-funnel.ts';
import { createManualClock } from '../../../src/scheduler/create-manual-clock.ts';
import { chunksFor } from '../../../src/store/campaign-id.ts';
import type { CampaignMeta, RecipientRow } from '../../../src/store/campaign-records.ts';
import { location, type ReplyLoop, startReplyLoop } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';
import { registry } from '../compliance/compliance-bots.ts';

const token = 'admin-5c1e0b7a9d3f42e86b1c0a9d7e4f2b35';
const t0 = Date.parse('2027-03-01T08:30:00Z');
/** Two recipients at 08:31 UTC, two at 09:20: before the quiz's hourly reminder of the first. */
const phones = ['33612000101', '33612000102', '33612000103', '33612000104'];
const dueOf = (i: number) => t0 + (i < 2 ? 60_000 : 50 * 60_000);

describe('a campaign’s progress over time (real Redis, the emulator, a manual clock)', () => {
  let loop: ReplyLoop | undefined;
  afterEach(async () => {
    await loop?.close();
    loop = undefined;
  });

  it('counts each stage in the hour it happened; the hours add up to the funnel and the recipients started', async () => {
    const clock = createManualClock(t0);
    loop = await startReplyLoop({ registry, clock });
    const store = loop.store;
    const meta: CampaignMeta = {
      v: 1,
      location,
      name: 'march',
      bot: 'quiz',
      status: 'active',
      schedule: { at: new Date(t0).toISOString() },
      ratePerSecond: 100,
      timeZone: 'UTC',
      late: { kind: 'skip' },
      chunks: chunksFor(phones.length, store.partitions),
      generation: 1,
      createdAt: t0,
      updatedAt: t0,
    };
    await store.saveCampaign(meta);
    const rows: RecipientRow[] = phones.map((phone, i) => ({
      row: phone,
      record: { state: 'scheduled', due: dueOf(i), line: i + 2, input: {} },
    }));
    await store.upsertRecipients(meta, 1, rows);
    const funnel = () => store.readCounters(funnelCounters(location, 'march'));
    const reach = (stage: string, count: number) =>
      waitFor(async () => ((await funnel())[stage] ?? 0) >= count, {
        timeout: 20_000,
        interval: 50,
        message: `funnel ${stage} reaches ${count}`,
      });

    // 08:31: two start, their questions are delivered, one answers the quiz.
    clock.set(dueOf(0));
    await loop.app.fireDueCampaigns!();
    await reach('delivered', 2);
    await loop.reply(phones[0]!, '3');
    await reach('completed', 1);
    // 09:20: two more start and are delivered, one texts STOP.
    clock.set(dueOf(2));
    await loop.app.fireDueCampaigns!();
    await reach('delivered', 4);
    await loop.reply(phones[2]!, 'STOP');
    await reach('opted_out', 1);

    const app = createHttpApp({
      store,
      clock,
      logger: pino({ level: 'silent' }),
      secrets: new Map(),
      extra: [
        createAdminRouter({
          store,
          registry,
          clock,
          config: { locations: [{ name: location } as LocationConfig], adminToken: token },
          logger: pino({ level: 'silent' }),
        }),
      ],
    });
    const get = (path: string) => request(app).get(path).set('authorization', `Bearer ${token}`);
    const progress = await get(`/admin/api/campaigns/${location}/march/progress`);
    expect(progress.status).toBe(200);
    const hours = progress.body.hours as Array<Record<string, number | string>>;
    expect(hours.map((hour) => hour.hour)).toEqual(['2027-03-01T08', '2027-03-01T09']);
    expect(hours[0]).toMatchObject({ started: 2, sent: 2, delivered: 2, completed: 1 });
    expect(hours[1]).toMatchObject({ started: 2, sent: 2, delivered: 2, opted_out: 1 });

    const shown = await get('/admin/campaigns/march');
    expect(shown.body.recipients).toEqual({ started: 4 });
    const sum = (stage: string) => hours.reduce((total, hour) => total + Number(hour[stage]), 0);
    expect(sum('started')).toBe(shown.body.recipients.started);
    for (const stage of [
      'sent',
      'delivered',
      'answered',
      'completed',
      'opted_out',
      'errored',
      'expired',
      'interrupted',
    ]) {
      expect(sum(stage), stage).toBe(shown.body.funnel[stage] ?? 0);
    }
    expect(shown.body.funnel).toMatchObject({ sent: 4, delivered: 4, completed: 1, opted_out: 1 });
  }, 60_000);
});
