/**
 * What the dashboard and `/metrics` read of the activity counters (`count-activity.ts` moves
 * them in each step's commit; `read-stats.ts` reads them, a few pipelined hash reads whatever
 * the number of conversations).
 */

/** How conversations ended, as the campaign funnel names it (`campaign-funnel.ts`). */
export const endStages = ['completed', 'opted_out', 'errored', 'expired', 'interrupted'] as const;
export type EndStage = (typeof endStages)[number];

/** Counts over a period: conversations started and ended by stage, messages sent and failed. */
export interface Tally {
  started: number;
  completed: number;
  opted_out: number;
  errored: number;
  expired: number;
  interrupted: number;
  /** Messages the sender had accepted by the service. */
  sent: number;
  /** Messages the service reported delivered. */
  delivered: number;
  /** Messages that failed (the service's `failed`/`undelivered`, or refused at send). */
  failed: number;
}

/** One bot in one location: the first screen's row. */
export interface BotOverview {
  location: string;
  bot: string;
  /** Conversations active now. */
  active: number;
  /** Since 00:00 UTC today. */
  today: Tally;
  /** The last 7 days, today included (UTC days). */
  week: Tally;
  /** Since the counters began (kept for REPLYFLOW_RETENTION from their last change). */
  total: Tally;
}

export interface Overview {
  /** When it was read (ms). */
  at: number;
  bots: BotOverview[];
}

/** Per period: a count per key. */
export interface Periods<T> {
  today: T;
  week: T;
  total: T;
}

/** A bot's live funnel: what its statechart page draws. */
export interface BotFunnel {
  location: string;
  bot: string;
  at: number;
  /**
   * Conversations in each state now, by state path (`statePath`: `'asking'`, `'booking.date'`):
   * a compound state counts the conversations in any of its descendants. `'*'` is the total.
   */
  active: Record<string, number>;
  /**
   * How many conversations took each transition, keyed `'<from>><to>'` by the leaf state paths
   * before and after the step (`'q1>q2'`; parallel leaves joined with `', '`). A run's first
   * state is counted as `'(start)><to>'`.
   */
  transitions: Periods<Record<string, number>>;
  /**
   * Where runs ended other than completed: leaf state path → end stage → count.
   */
  dropOffs: Periods<Record<string, Partial<Record<EndStage, number>>>>;
}

export const emptyTally = (): Tally => ({
  started: 0,
  completed: 0,
  opted_out: 0,
  errored: 0,
  expired: 0,
  interrupted: 0,
  sent: 0,
  delivered: 0,
  failed: 0,
});
