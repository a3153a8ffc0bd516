import type { ManualClock } from '../scheduler/create-manual-clock.ts';
import type { Store } from '../store/store.ts';

/** Timer firings one advance may make before it is taken for a loop. */
const maxStops = 1_000;

export interface AdvanceInput {
  store: Store;
  clock: ManualClock;
  /** Where the clock ends (ms since the epoch). */
  until: number;
  /** The scheduler's sweep: moves the timers due by the clock into their mailboxes. */
  fireDueTimers: () => Promise<number>;
  waitUntilIdle: () => Promise<void>;
}

/**
 * Moves a manual clock to `until` the way time passes: it stops at each timer's due time, in
 * order, fires what is due and lets the engine answer before going on, so a timer set by a
 * timer that fired on the way fires too, at its own time. A reminder after 24 h followed by an
 * expiry 48 h later both fire within one `advance('3d')`, each at its moment.
 */
export async function advanceThroughTimers(input: AdvanceInput): Promise<void> {
  const { store, clock, until } = input;
  for (let stops = 0; ; stops++) {
    const next = await nextDue(store);
    if (next === null || next > until) break;
    if (stops >= maxStops) {
      throw new Error(
        `advancing the clock fired ${maxStops} timers and more keep coming due: does a bot set a timer again each time one fires (after: { 0: … })?`,
      );
    }
    if (next > clock.now()) clock.set(next);
    await input.fireDueTimers();
    await input.waitUntilIdle();
  }
  if (until > clock.now()) clock.set(until);
  await input.fireDueTimers();
  await input.waitUntilIdle();
}

async function nextDue(store: Store): Promise<number | null> {
  let soonest: number | null = null;
  for (let partition = 0; partition < store.partitions; partition++) {
    const due = await store.nextTimerDue(partition);
    if (due !== null && (soonest === null || due < soonest)) soonest = due;
  }
  return soonest;
}
