import { describe, expect, it } from 'vitest';
import type {
  CampaignChunk,
  CampaignMeta,
  RecipientRow,
} from '../../../../src/store/campaign-records.ts';
import type { Store } from '../../../../src/store/store.ts';
import { location, phonesInDistinctPartitions, t0 } from './fixtures.ts';

const meta = (overrides: Partial<CampaignMeta> = {}): CampaignMeta => ({
  v: 1,
  location,
  name: 'spring',
  bot: 'survey',
  status: 'active',
  schedule: { at: new Date(t0 + 60_000).toISOString() },
  ratePerSecond: 20,
  timeZone: 'Europe/Paris',
  late: { kind: 'skip' },
  chunks: 2,
  generation: 1,
  createdAt: t0,
  updatedAt: t0,
  ...overrides,
});

const scheduled = (due: number, line: number, input: unknown = { name: `n${line}` }) => ({
  state: 'scheduled' as const,
  due,
  line,
  input,
});

/** Every recipient, row → state (with its reason). */
async function states(store: Store, campaign: CampaignMeta): Promise<Record<string, string>> {
  const all: Record<string, string> = {};
  for await (const batch of store.scanRecipients(campaign)) {
    for (const { row, record } of batch) {
      all[row] = record.reason ? `${record.state}:${record.reason}` : record.state;
    }
  }
  return all;
}

/** Claims what is due at `now` in every partition. */
async function claimAll(store: Store, now: number): Promise<CampaignChunk[]> {
  const chunks: CampaignChunk[] = [];
  for (let p = 0; p < store.partitions; p++) {
    chunks.push(...(await store.claimDueChunks(p, now, 30_000, 100)));
  }
  return chunks;
}

export function campaignContract(store: () => Store): void {
  describe('campaigns', () => {
    it('keeps definitions per location, listed by name', async () => {
      await store().saveCampaign(meta({ name: 'b' }));
      await store().saveCampaign(meta({ name: 'a' }));
      await store().saveCampaign(meta({ location: 'lyon', name: 'c' }));
      expect(await store().getCampaign({ location, name: 'a' })).toEqual(meta({ name: 'a' }));
      expect(await store().getCampaign({ location, name: 'zz' })).toBeNull();
      expect((await store().listCampaigns(location)).map((c) => c.name)).toEqual(['a', 'b']);
      expect((await store().listCampaigns()).map((c) => `${c.location}/${c.name}`)).toEqual([
        'lyon/c',
        'paris/a',
        'paris/b',
      ]);
      await store().deleteCampaign({ location, name: 'a' });
      expect(await store().getCampaign({ location, name: 'a' })).toBeNull();
      expect((await store().listCampaigns(location)).map((c) => c.name)).toEqual(['b']);
    });

    it('imports rows with their counters: added, unchanged, rescheduled, opted out, bad rows', async () => {
      const campaign = meta();
      const [a = '', b = '', c = ''] = phonesInDistinctPartitions(store(), 3);
      await store().markOptedOut({ location, phone: c }, t0);
      const rows: RecipientRow[] = [
        { row: a, record: scheduled(t0 + 60_000, 2) },
        { row: b, record: scheduled(t0 + 120_000, 3) },
        { row: c, record: scheduled(t0 + 60_000, 4) },
        { row: '#5', record: { state: 'skipped', reason: 'bad_phone', line: 5 } },
      ];
      expect(await store().upsertRecipients(campaign, 1, rows)).toEqual({
        added: 4,
        rescheduled: 0,
        unchanged: 0,
        optedOut: 1,
      });
      expect(await store().campaignCounts(campaign)).toEqual({
        scheduled: 2,
        'skipped:opted_out': 1,
        'skipped:bad_phone': 1,
      });
      // The same file again: nothing changes but the generation.
      expect(await store().upsertRecipients(campaign, 2, rows)).toEqual({
        added: 0,
        rescheduled: 0,
        unchanged: 4,
        optedOut: 0,
      });
      const moved = [{ row: b, record: scheduled(t0 + 30_000, 3) }];
      expect(await store().upsertRecipients(campaign, 3, moved)).toMatchObject({ rescheduled: 1 });
      const entries = [];
      for await (const batch of store().scanRecipients(campaign)) entries.push(...batch);
      const entry = entries.find((e) => e.row === b);
      expect(entry?.record).toMatchObject({ due: t0 + 30_000, revision: 1, generation: 3 });
      expect(await store().nextCampaignDue(store().partitionOf(b))).toBe(t0 + 30_000);
    });

    it('cancels what a new import no longer names, and drops its old bad rows', async () => {
      const campaign = meta();
      const [a = '', b = ''] = phonesInDistinctPartitions(store(), 2);
      await store().upsertRecipients(campaign, 1, [
        { row: a, record: scheduled(t0 + 60_000, 2) },
        { row: b, record: scheduled(t0 + 60_000, 3) },
        { row: '#4', record: { state: 'skipped', reason: 'bad_input', line: 4 } },
      ]);
      await store().upsertRecipients(campaign, 2, [{ row: a, record: scheduled(t0 + 60_000, 2) }]);
      expect(await store().sweepRecipients(campaign, 2)).toBe(1);
      expect(await states(store(), campaign)).toEqual({
        [a]: 'scheduled',
        [b]: 'skipped:cancelled',
      });
      expect(await store().campaignCounts(campaign)).toEqual({
        scheduled: 1,
        'skipped:cancelled': 1,
      });
      expect(await store().nextCampaignDue(store().partitionOf(b))).toBeUndefined();
    });

    it('fires due recipients once: a start into the mailbox, a hold, a skip; a stale decision does nothing', async () => {
      const campaign = meta({ chunks: 1 });
      const phones = phonesInDistinctPartitions(store(), 1);
      const [a = ''] = phones;
      const partition = store().partitionOf(a);
      // Three rows in a's partition: a, and two more numbers that land there.
      const others: string[] = [];
      for (let n = 0; others.length < 2; n++) {
        const phone = `3367${String(n).padStart(7, '0')}`;
        if (phone !== a && store().partitionOf(phone) === partition) others.push(phone);
      }
      const [b = '', c = ''] = others;
      await store().upsertRecipients(campaign, 1, [
        { row: a, record: scheduled(t0 + 10_000, 2) },
        { row: b, record: scheduled(t0 + 10_000, 3) },
        { row: c, record: scheduled(t0 + 90_000, 4) },
      ]);
      expect(await store().nextCampaignDue(partition)).toBe(t0 + 10_000);
      expect(await store().claimDueChunks(partition, t0, 30_000, 10)).toEqual([]);
      const [chunk, ...more] = await store().claimDueChunks(partition, t0 + 10_000, 30_000, 10);
      expect(more).toEqual([]);
      expect(chunk).toEqual({ location, name: 'spring', partition, chunk: 0 });
      // Claimed: hidden from another runner until the lease ends.
      expect(await store().claimDueChunks(partition, t0 + 10_000, 30_000, 10)).toEqual([]);
      const due = (await store().readChunk(chunk!)).filter(
        (e) => (e.record.due ?? 0) <= t0 + 10_000,
      );
      expect(due.map((e) => e.row).sort()).toEqual([a, b].sort());
      const event = JSON.stringify({
        v: 1,
        id: `campaign:paris:spring:${a}:0:0`,
        kind: 'start',
        location,
        phone: a,
        receivedAt: t0 + 10_000,
        botId: 'survey',
        input: { name: 'n2' },
      });
      const fired = await store().fireRecipients(
        chunk!,
        [
          { row: a, revision: 0, action: 'start', phone: { location, phone: a }, event },
          { row: b, revision: 0, action: 'hold', until: t0 + 50_000 },
          { row: c, revision: 7, action: 'skip', reason: 'past_due' },
        ],
        t0 + 10_000,
      );
      expect(fired).toEqual({ state: 'active', outcomes: ['started', 'held', 'stale'] });
      expect(await store().pendingEvents({ location, phone: a })).toEqual([JSON.parse(event)]);
      // The same decision again (another runner): stale, nothing pushed twice.
      const again = await store().fireRecipients(
        chunk!,
        [{ row: a, revision: 0, action: 'start', phone: { location, phone: a }, event }],
        t0 + 10_000,
      );
      expect(again).toEqual({ state: 'active', outcomes: ['stale'] });
      expect(await store().pendingEvents({ location, phone: a })).toHaveLength(1);
      expect(await store().settleChunk(chunk!, campaign.chunks)).toBe(t0 + 50_000);
      expect(await store().nextCampaignDue(partition)).toBe(t0 + 50_000);
      expect(await store().campaignCounts(campaign)).toEqual({
        scheduled: 1,
        held: 1,
        started: 1,
      });
    });

    it("keeps a row keyed by something else than its phone in its phone's partition, and finds it by key", async () => {
      const campaign = meta({ name: 'api', chunks: 4 });
      const [a = ''] = phonesInDistinctPartitions(store(), 1);
      const row = 'kabc123';
      await store().upsertRecipients(campaign, 1, [
        { row, record: { state: 'scheduled', due: t0, phone: a, bot: 'appointment', input: {} } },
      ]);
      const found = await store().findRecipient(campaign, row);
      expect(found?.chunk.partition).toBe(store().partitionOf(a));
      expect(found?.entry.record).toMatchObject({ phone: a, bot: 'appointment', due: t0 });
      expect(await store().findRecipient(campaign, 'knone')).toBeNull();
      expect(await store().nextCampaignDue(store().partitionOf(a))).toBe(t0);
      // A skip decision cancels it while it waits.
      const skipped = await store().fireRecipients(
        found!.chunk,
        [{ row, revision: 0, action: 'skip', reason: 'cancelled' }],
        t0,
      );
      expect(skipped).toEqual({ state: 'active', outcomes: ['skipped'] });
    });

    it('a paused or cancelled campaign fires nothing and leaves the due index; resumed, it is back', async () => {
      const campaign = meta({ chunks: 1 });
      const [a = ''] = phonesInDistinctPartitions(store(), 1);
      const partition = store().partitionOf(a);
      await store().upsertRecipients(campaign, 1, [
        { row: a, record: scheduled(t0, 2) },
        { row: '#7', record: { state: 'skipped', reason: 'bad_phone', line: 7 } },
      ]);
      const [chunk] = await claimAll(store(), t0);
      await store().setCampaignState(campaign, 'paused');
      expect(await store().nextCampaignDue(partition)).toBeUndefined();
      const decision = {
        row: a,
        revision: 0,
        action: 'skip' as const,
        reason: 'past_due' as const,
      };
      expect(await store().fireRecipients(chunk!, [decision], t0)).toEqual({ state: 'paused' });
      expect(await store().settleChunk(chunk!, campaign.chunks)).toBeUndefined();
      await store().setCampaignState(campaign, 'active');
      expect(await store().nextCampaignDue(partition)).toBe(t0);
      await store().setCampaignState(campaign, 'cancelled');
      expect(await store().fireRecipients(chunk!, [decision], t0)).toEqual({ state: 'cancelled' });
      // A cancel's sweep keeps the rows without a phone: the counts still add up to the file.
      const cancel = { keepRowsWithoutPhone: true };
      expect(await store().sweepRecipients(campaign, Number.MAX_SAFE_INTEGER, cancel)).toBe(1);
      expect(await store().campaignCounts(campaign)).toEqual({
        'skipped:cancelled': 1,
        'skipped:bad_phone': 1,
      });
    });

    it('skips a start to a phone that opted out meanwhile, and tells every process of an earlier due time', async () => {
      const campaign = meta({ chunks: 1 });
      const [a = ''] = phonesInDistinctPartitions(store(), 1);
      const heard: [number, number][] = [];
      const stop = store().onCampaignDue((partition, dueAt) => heard.push([partition, dueAt]));
      try {
        // The subscription may take a moment: import until it is heard.
        for (let i = 0; heard.length === 0 && i < 100; i++) {
          await store().upsertRecipients(campaign, 1, [
            { row: a, record: scheduled(t0 + 1_000 - i, 2) },
          ]);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect(heard[0]?.[0]).toBe(store().partitionOf(a));
      } finally {
        stop();
      }
      await store().markOptedOut({ location, phone: a }, t0);
      const [chunk] = await claimAll(store(), t0 + 1_000);
      const [entry] = await store().readChunk(chunk!);
      const fired = await store().fireRecipients(
        chunk!,
        [
          {
            row: a,
            revision: entry!.record.revision,
            action: 'start',
            phone: { location, phone: a },
            event: '{}',
          },
        ],
        t0 + 1_000,
      );
      expect(fired).toEqual({ state: 'active', outcomes: ['opted_out'] });
      expect(await store().pendingEvents({ location, phone: a })).toEqual([]);
      expect(await store().campaignCounts(campaign)).toEqual({ 'skipped:opted_out': 1 });
    });
  });
}
