import type { CampaignStore } from '../store/campaign-store.ts';
import {
  activeCounters,
  allStates,
  dayCounters,
  lastDays,
  totalCounters,
} from './counter-names.ts';
import {
  type BotFunnel,
  type BotOverview,
  type EndStage,
  emptyTally,
  endStages,
  type Overview,
  type Periods,
  type Tally,
} from './stats-types.ts';

type Counters = Record<string, number>;
type Reader = Pick<CampaignStore, 'readCounters'>;

/** A bot of a location, as the dashboard lists them. */
export interface BotRef {
  location: string;
  bot: string;
}

/**
 * The first screen: per location and bot, active now and the tallies of today, the last 7 days
 * and all kept. Reads 9 counters hashes per bot (on Redis, one HGETALL per partition each, all
 * at once), never a conversation.
 */
export async function readOverview(store: Reader, bots: BotRef[], now: number): Promise<Overview> {
  const rows = await Promise.all(
    bots.map(async ({ location, bot }): Promise<BotOverview> => {
      const { active, days, total } = await readBot(store, location, bot, now);
      return {
        location,
        bot,
        active: active[allStates] ?? 0,
        today: tallyOf(days[0] ?? {}),
        week: tallyOf(sum(days)),
        total: tallyOf(total),
      };
    }),
  );
  return { at: now, bots: rows };
}

/** A bot's live funnel: conversations per state now, transitions taken and drop-offs. */
export async function readBotFunnel(
  store: Reader,
  location: string,
  bot: string,
  now: number,
): Promise<BotFunnel> {
  const { active, days, total } = await readBot(store, location, bot, now);
  const periods: Periods<Counters> = { today: days[0] ?? {}, week: sum(days), total };
  const pick = <T>(read: (counters: Counters) => T): Periods<T> => ({
    today: read(periods.today),
    week: read(periods.week),
    total: read(periods.total),
  });
  return {
    location,
    bot,
    at: now,
    active,
    transitions: pick(transitionsOf),
    dropOffs: pick(dropOffsOf),
  };
}

async function readBot(store: Reader, location: string, bot: string, now: number) {
  const [active, total, ...days] = await Promise.all([
    store.readCounters(activeCounters(location, bot)),
    store.readCounters(totalCounters(location, bot)),
    ...lastDays(now, 7).map((day) => store.readCounters(dayCounters(location, bot, day))),
  ]);
  return { active: positive(active ?? {}), total: total ?? {}, days };
}

function tallyOf(counters: Counters): Tally {
  const tally = emptyTally();
  tally.started = counters.started ?? 0;
  for (const stage of endStages) tally[stage] = counters[`end:${stage}`] ?? 0;
  tally.sent = counters.sent ?? 0;
  tally.delivered = counters.delivered ?? 0;
  tally.failed = counters.failed ?? 0;
  return tally;
}

function transitionsOf(counters: Counters): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [field, count] of Object.entries(counters)) {
    if (field.startsWith('t:')) out[field.slice(2)] = count;
  }
  return out;
}

function dropOffsOf(counters: Counters): Record<string, Partial<Record<EndStage, number>>> {
  const out: Record<string, Partial<Record<EndStage, number>>> = {};
  for (const [field, count] of Object.entries(counters)) {
    if (!field.startsWith('x:')) continue;
    const cut = field.lastIndexOf(':');
    const state = field.slice(2, cut);
    const stage = field.slice(cut + 1) as EndStage;
    out[state] = { ...out[state], [stage]: count };
  }
  return out;
}

function sum(hashes: Counters[]): Counters {
  const out: Counters = {};
  for (const hash of hashes) {
    for (const [field, count] of Object.entries(hash)) out[field] = (out[field] ?? 0) + count;
  }
  return out;
}

/** A gauge read between a reconciliation's corrections may dip below 0 for a moment: not shown. */
function positive(counters: Counters): Counters {
  const out: Counters = {};
  for (const [field, count] of Object.entries(counters)) if (count > 0) out[field] = count;
  return out;
}

/**
 * Active conversations per bot and leaf state now, summed over the locations, from the gauges:
 * exact, whatever the number of conversations (`replyflow_conversations_active`). A
 * conversation in parallel states counts in each region's leaf.
 */
export async function readActiveStates(
  store: Reader,
  bots: BotRef[],
): Promise<{ bot: string; state: string; count: number }[]> {
  const gauges = await Promise.all(
    bots.map(async ({ location, bot }) => ({
      bot,
      gauge: positive(await store.readCounters(activeCounters(location, bot))),
    })),
  );
  const counts = new Map<string, { bot: string; state: string; count: number }>();
  for (const { bot, gauge } of gauges) {
    const fields = Object.keys(gauge).filter((field) => field !== allStates);
    for (const state of fields) {
      // An ancestor (`booking` of `booking.date`) counts its descendants again: leaves only.
      if (fields.some((other) => other.startsWith(`${state}.`))) continue;
      const key = `${bot}\n${state}`;
      const entry = counts.get(key) ?? { bot, state, count: 0 };
      entry.count += gauge[state] ?? 0;
      counts.set(key, entry);
    }
  }
  return [...counts.values()];
}
