import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import survey from '../../../bots/survey.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { complianceBotId } from '../../../src/conversation/compliance-step.ts';
import { gaugePaths } from '../../../src/conversation/count-activity.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { systemClock } from '../../../src/scheduler/clock.ts';
import { activeCounters, totalCounters } from '../../../src/stats/counter-names.ts';
import { readBotFunnel, readOverview } from '../../../src/stats/read-stats.ts';
import { reconcileActivity } from '../../../src/stats/reconcile-activity.ts';
import { startReconcileLoop } from '../../../src/stats/reconcile-loop.ts';
import { LogCapture } from '../../support/log-capture.ts';
import { location, type ReplyLoop, settle, startReplyLoop } from '../../support/reply-loop.ts';
import { waitFor } from '../../support/wait-for.ts';

const registry = createBotRegistry([{ bot: survey, file: 'survey.ts' }]);
const phones = {
  finishes: ['33612340101', '33612340102'],
  stopsAtScore: ['33612340201', '33612340202', '33612340203'],
  optsOut: ['33612340301'],
  silent: ['33612340401', '33612340402'],
};
const everyone = Object.values(phones).flat();

/** The gauge the records say: conversations per state path now, from each phone's record. */
async function gaugeFromRecords(loop: ReplyLoop): Promise<Record<string, number>> {
  const gauge: Record<string, number> = {};
  for (const phone of everyone) {
    const record = await loop.store.getConversation({ location, phone });
    if (record?.status !== 'active') continue;
    for (const path of gaugePaths(record)) gauge[path] = (gauge[path] ?? 0) + 1;
  }
  return gauge;
}

describe('activity counters, moved in the commits of a real survey (Redis, emulator on loopback)', () => {
  let loop: ReplyLoop;
  beforeAll(async () => {
    loop = await startReplyLoop({ registry });
    for (const phone of everyone) await loop.start(phone, 'survey', { lang: 'en' });
    for (const phone of everyone) await loop.waitForBodies(phone, 1);
    for (const phone of phones.finishes) {
      await loop.reply(phone, '1');
      await loop.waitForBodies(phone, 2);
      await loop.reply(phone, '9');
      await loop.waitForBodies(phone, 3);
      await loop.reply(phone, 'SKIP');
      await loop.waitForBodies(phone, 4);
    }
    for (const phone of phones.stopsAtScore) {
      await loop.reply(phone, '2');
      await loop.waitForBodies(phone, 2);
    }
    for (const phone of phones.optsOut) {
      await loop.reply(phone, 'STOP');
      await loop.waitForBodies(phone, 2);
    }
    for (const phone of everyone) await settle(loop, phone);
  });
  afterAll(() => loop?.close());

  it('counts each state now exactly as the records are, and the transitions taken', async () => {
    const funnel = await readBotFunnel(loop.store, location, 'survey', Date.now());
    const gauge = await gaugeFromRecords(loop);
    expect(gauge['*']).toBe(phones.stopsAtScore.length + phones.silent.length);
    expect(funnel.active).toEqual(gauge);
    const taken = funnel.transitions.today;
    expect(taken['(start)>answering.visit']).toBe(everyone.length);
    expect(taken['answering.visit>answering.score']).toBe(
      phones.finishes.length + phones.stopsAtScore.length,
    );
    expect(taken['answering.score>answering.comment']).toBe(phones.finishes.length);
    expect(funnel.transitions.week).toEqual(taken);
    expect(funnel.transitions.total).toEqual(taken);
    expect(funnel.dropOffs.today).toEqual({
      'answering.visit': { opted_out: phones.optsOut.length },
    });
  });

  it('tallies starts, ends and messages as the emulator and the results saw them', async () => {
    let sentByEmulator = 0;
    for (const phone of everyone) sentByEmulator += (await loop.bodiesTo(phone)).length;
    // The opt-out confirmations are the compliance rules' messages, counted under their own id.
    const confirmations = phones.optsOut.length;
    const survey = sentByEmulator - confirmations;
    // The sender records a send (and counts it) just after the service accepted it.
    await waitFor(async () => {
      const { bots } = await readOverview(loop.store, [{ location, bot: 'survey' }], Date.now());
      return bots[0]?.today.sent === survey && bots[0]?.today.delivered === survey;
    });
    const { bots } = await readOverview(loop.store, [{ location, bot: 'survey' }], Date.now());
    expect(bots).toHaveLength(1);
    const row = bots[0]!;
    expect(row.active).toBe(phones.stopsAtScore.length + phones.silent.length);
    expect(row.today).toMatchObject({
      started: everyone.length,
      completed: phones.finishes.length,
      opted_out: phones.optsOut.length,
      errored: 0,
      expired: 0,
      sent: survey,
      delivered: survey,
      failed: 0,
    });
    const compliance = await loop.store.readCounters(totalCounters(location, complianceBotId));
    expect(compliance).toMatchObject({ sent: confirmations });
    expect(row.week).toEqual(row.today);
    expect(row.total).toEqual(row.today);
  });

  it('reconciliation finds an injected drift and corrects it, and leaves right counters alone', async () => {
    const name = activeCounters(location, 'survey');
    const right = await loop.store.readCounters(name);
    expect((await reconcileActivity(loop.store)).corrected).toEqual([]);

    await loop.store.adjustCounters([
      { name, field: '*', by: 5, ttlMs: 0 },
      { name, field: 'answering.score', by: -2, ttlMs: 0 },
      { name, field: 'ghost', by: 3, ttlMs: 0 },
    ]);
    expect(await loop.store.readCounters(name)).not.toEqual(right);
    const report = await reconcileActivity(loop.store, { bots: [{ location, bot: 'survey' }] });
    expect(report.records).toBe(phones.stopsAtScore.length + phones.silent.length);
    expect(report.corrected).toEqual(
      expect.arrayContaining([
        { name, field: '*', by: -5 },
        { name, field: 'answering.score', by: 2 },
        { name, field: 'ghost', by: -3 },
      ]),
    );
    expect(await loop.store.readCounters(name)).toEqual(right);
    expect(await loop.store.readCounters(name)).toEqual(await gaugeFromRecords(loop));
  });

  it('rebuilds a gauge lost whole (counters that began after the conversations did)', async () => {
    const name = activeCounters(location, 'survey');
    const right = await loop.store.readCounters(name);
    await loop.store.adjustCounters(
      Object.entries(right).map(([field, count]) => ({ name, field, by: -count, ttlMs: 0 })),
    );
    expect(await loop.store.readCounters(name)).toEqual({});
    await reconcileActivity(loop.store);
    expect(await loop.store.readCounters(name)).toEqual(right);
  });

  it('runs on its own as the scheduler role does: the drift corrected and logged, then again each period', async () => {
    const name = activeCounters(location, 'survey');
    const right = await loop.store.readCounters(name);
    await loop.store.adjustCounters([{ name, field: 'answering.score', by: 7, ttlMs: 0 }]);
    const capture = new LogCapture();
    const running = startReconcileLoop({
      store: loop.store,
      clock: systemClock,
      logger: createLogger({ level: 'info', destination: capture.stream }),
      bots: () => [{ location, bot: 'survey' }],
      everyMs: 1_000,
      firstAfterMs: 10,
    });
    const runs = () => capture.lines.filter((line) => /"msg":"stats: /.test(line));
    try {
      await waitFor(() => runs().length >= 1);
      expect(await loop.store.readCounters(name)).toEqual(right);
      expect(JSON.parse(runs()[0]!)).toMatchObject({
        level: 40,
        corrected: [{ name, field: 'answering.score', by: -7 }],
      });
      // The next period runs again (the loop keeps going) and finds nothing to correct.
      await waitFor(() => runs().length >= 2, { timeout: 10_000 });
      expect(JSON.parse(runs()[1]!)).toMatchObject({ level: 30, corrected: [] });
    } finally {
      running.stop();
    }
  });
});
