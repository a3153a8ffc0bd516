import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { apiRow, getApiCampaign } from '../../../src/campaigns/api-campaign.ts';
import { cancelScheduledStart } from '../../../src/campaigns/cancel-scheduled-start.ts';
import { createCampaignRunner } from '../../../src/campaigns/create-campaign-runner.ts';
import { type ScheduledStart, scheduleStart } from '../../../src/campaigns/schedule-start.ts';
import { ValidationError } from '../../../src/errors.ts';
import { createManualClock } from '../../../src/scheduler/create-manual-clock.ts';
import { createMemorySendLimiter } from '../../../src/store/memory/create-memory-send-limiter.ts';
import { createMemoryStore } from '../../../src/store/memory/create-memory-store.ts';

const t0 = Date.parse('2027-03-01T08:00:00Z');
const hour = 3_600_000;
const day = 24 * hour;
const phone = '33612345678';

function setup(keepMs?: number) {
  const store = createMemoryStore({});
  const clock = createManualClock(t0);
  const runner = createCampaignRunner({
    store,
    clock,
    logger: pino({ level: 'silent' }),
    registry: createBotRegistry([]),
    limiterFor: () => createMemorySendLimiter(1_000),
    ...(keepMs !== undefined && { pruneApiStarts: { locations: ['paris'], keepMs } }),
  });
  const start = (overrides: Partial<ScheduledStart> = {}) =>
    scheduleStart(
      store,
      {
        location: 'paris',
        bot: 'quiz',
        phone,
        input: { name: 'Ada' },
        key: 'booking-1',
        at: '2027-03-02T08:00:00Z',
        timeZone: 'UTC',
        past: { kind: 'skip' },
        ratePerSecond: 100,
        ...overrides,
      },
      clock.now(),
    );
  const counts = async () => store.campaignCounts((await getApiCampaign(store, 'paris'))!);
  const starts = async () =>
    (await store.pendingEvents({ location: 'paris', phone })).filter((e) => e.kind === 'start');
  return { store, clock, runner, start, counts, starts };
}

describe('scheduleStart: a keyed start is one record for its whole life', () => {
  it('answers duplicate to the same request whenever it comes, the start fired or not', async () => {
    const { clock, runner, start, counts, starts } = setup();
    expect(await start()).toMatchObject({ outcome: 'scheduled', state: 'scheduled' });
    clock.advance(day);
    await runner.tick();
    expect(await starts()).toHaveLength(1);
    // 25 and 40 days later the time is long past: the retry is still the same request, not a
    // past_due start that overwrites the one that fired.
    for (const later of [25, 40]) {
      clock.set(t0 + later * day);
      expect(await start()).toMatchObject({
        outcome: 'duplicate',
        state: 'started',
        at: t0 + day,
        revision: 0,
      });
      await runner.tick();
    }
    expect(await starts()).toHaveLength(1);
    expect(await counts()).toEqual({ started: 1 });
  });

  it('a start sent late under sendIfWithin, asked again, is a duplicate (not a second start)', async () => {
    const { clock, runner, start, starts } = setup();
    clock.set(t0 + day + 2 * hour);
    const late = { past: { kind: 'sendIfWithin', ms: 6 * hour } } as const;
    expect(await start(late)).toMatchObject({ outcome: 'scheduled', at: t0 + day + 2 * hour });
    await runner.tick();
    clock.advance(hour);
    expect(await start(late)).toMatchObject({ outcome: 'duplicate', state: 'started' });
    await runner.tick();
    expect(await starts()).toHaveLength(1);
  });

  it('reschedules for a new date, another input or another bot at the same time', async () => {
    const { start } = setup();
    await start();
    expect(await start({ at: '2027-03-03T08:00:00Z' })).toMatchObject({
      outcome: 'rescheduled',
      at: t0 + 2 * day,
      revision: 1,
    });
    expect(await start({ at: '2027-03-03T08:00:00Z', bot: 'survey' })).toMatchObject({
      outcome: 'rescheduled',
      revision: 2,
    });
    expect(await start({ at: '2027-03-03T09:00:00+01:00', bot: 'survey' })).toMatchObject({
      outcome: 'duplicate',
      revision: 2,
    });
  });

  it('records a past time as skipped past_due, once; refuses a bad date, another phone, an opted-out phone, recording nothing', async () => {
    const { store, start, counts } = setup();
    expect(await start({ at: '2027-02-28T08:00:00Z' })).toMatchObject({
      outcome: 'past_due',
      message: expect.stringContaining('1 d ago'),
    });
    expect(await start({ at: '2027-02-28T08:00:00Z' })).toMatchObject({ outcome: 'past_due' });
    expect(await counts()).toEqual({ 'skipped:past_due': 1 });

    expect(
      await start({ key: 'b-2', at: undefined, relativeTo: 'input.at', offset: '-24h' }),
    ).toEqual({
      outcome: 'bad_date',
      message: "input.at: no date in column 'at'",
      field: 'input.at',
    });
    await expect(start({ key: 'b-2', at: 'tomorrow' })).rejects.toBeInstanceOf(ValidationError);
    await expect(start({ key: 'b-2', deliveryWindow: '9-19' })).rejects.toMatchObject({
      field: 'window',
    });
    expect(await start({ phone: '33612345679' })).toMatchObject({ outcome: 'key_conflict' });
    await store.markOptedOut({ location: 'paris', phone: '33612345670' }, t0);
    expect(await start({ key: 'b-3', phone: '33612345670' })).toMatchObject({
      outcome: 'opted_out',
    });
    expect(await counts()).toEqual({ 'skipped:past_due': 1 });
  });

  it('a start now: the same request is a duplicate; another one for a start that fired is a key_conflict', async () => {
    const { runner, start, starts } = setup();
    const now = { at: undefined };
    expect(await start(now)).toMatchObject({ outcome: 'scheduled', at: t0 });
    await runner.tick();
    expect(await start(now)).toMatchObject({ outcome: 'duplicate', state: 'started' });
    expect(await start({ ...now, input: { name: 'Bo' } })).toMatchObject({
      outcome: 'key_conflict',
    });
    expect(await start({ ...now, key: 'b-2', busyWith: 'quiz' })).toMatchObject({
      outcome: 'active_conversation',
      activeBot: 'quiz',
    });
    expect(await starts()).toHaveLength(1);
  });

  it('cancels a start that has not fired (again: the same answer), and tells one that fired', async () => {
    const { store, clock, runner, start, starts, counts } = setup();
    await start();
    await start({ key: 'b-2', at: '2027-03-01T09:00:00Z' });
    expect(await cancelScheduledStart(store, 'paris', 'booking-1', t0)).toEqual({
      outcome: 'cancelled',
    });
    expect(await cancelScheduledStart(store, 'paris', 'booking-1', t0)).toEqual({
      outcome: 'cancelled',
    });
    expect(await cancelScheduledStart(store, 'paris', 'unknown', t0)).toEqual({
      outcome: 'not_found',
    });
    expect(await cancelScheduledStart(store, 'lyon', 'booking-1', t0)).toEqual({
      outcome: 'not_found',
    });
    // The same request again after its cancel: a retry, not a new start.
    expect(await start()).toMatchObject({ outcome: 'duplicate', state: 'skipped' });
    clock.advance(hour);
    await runner.tick();
    expect(await starts()).toHaveLength(1);
    expect(await cancelScheduledStart(store, 'paris', 'b-2', clock.now())).toEqual({
      outcome: 'started',
    });
    expect(await counts()).toEqual({ started: 1, 'skipped:cancelled': 1 });
  });

  it('is remembered the retention after its time, then forgotten; a start still waiting is kept', async () => {
    const { store, clock, runner, start, counts } = setup(7 * day);
    await start();
    await start({ key: 'b-2', phone: '33612345679', at: '2027-04-01T08:00:00Z' });
    await moveAndTick(t0 + day);
    // The retention (7 days here) and the 15 minutes a start may fire late.
    await moveAndTick(t0 + 8 * day + 14 * 60_000);
    expect(await start()).toMatchObject({ outcome: 'duplicate', state: 'started' });
    // The runner prunes once an hour of its clock.
    await moveAndTick(t0 + 8 * day + 75 * 60_000);
    const meta = (await getApiCampaign(store, 'paris'))!;
    expect(await store.findRecipient(meta, apiRow('booking-1'))).toBeNull();
    expect(await counts()).toEqual({ scheduled: 1 });
    expect((await store.findRecipient(meta, apiRow('b-2')))?.entry.record.state).toBe('scheduled');

    async function moveAndTick(at: number) {
      clock.set(at);
      await runner.tick();
    }
  });
});
