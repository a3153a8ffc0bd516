import { describe, expect, it } from 'vitest';
import { pruneFinishedCampaigns } from '../../../src/campaigns/prune-finished-campaigns.ts';
import type { CampaignMeta } from '../../../src/store/campaign-records.ts';
import { createMemoryStore } from '../../../src/store/memory/create-memory-store.ts';

const day = 24 * 3_600_000;
const t0 = Date.parse('2027-01-01T00:00:00Z');

const meta = (name: string, updatedAt: number): CampaignMeta => ({
  v: 1,
  location: 'paris',
  name,
  bot: 'survey',
  status: 'active',
  schedule: { at: new Date(t0).toISOString() },
  ratePerSecond: 10,
  timeZone: 'UTC',
  late: { kind: 'skip' },
  chunks: 1,
  generation: 1,
  createdAt: updatedAt,
  updatedAt,
});

describe('pruneFinishedCampaigns', () => {
  it('forgets a campaign with nothing waiting past the retention, and keeps the others', async () => {
    const store = createMemoryStore({});
    const done = meta('done', t0);
    const waiting = meta('waiting', t0);
    const fresh = meta('fresh', t0 + 29 * day);
    const api = meta('_api', t0);
    for (const m of [done, waiting, fresh, api]) await store.saveCampaign(m);
    await store.upsertRecipients(done, 1, [
      { row: '33612340001', record: { state: 'skipped', reason: 'past_due', line: 2 } },
    ]);
    await store.upsertRecipients(waiting, 1, [
      { row: '33612340002', record: { state: 'scheduled', due: t0 + 60 * day, line: 2 } },
    ]);
    expect(await pruneFinishedCampaigns(store, t0 + 31 * day, 30 * day)).toBe(1);
    expect((await store.listCampaigns('paris')).map((c) => c.name)).toEqual([
      '_api',
      'fresh',
      'waiting',
    ]);
  });
});
