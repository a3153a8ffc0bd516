/**
 * The activity counters' hashes (each summed over the store's partitions by `readCounters`):
 * - `act:<location>:<bot>`, a gauge with no TTL: conversations in each state path now, and `*`;
 * - `day:<location>:<bot>:<yyyy-mm-dd>` (UTC), kept 8 days: what happened that day;
 * - `tot:<location>:<bot>`, kept for the retention from its last change: since it began.
 * The day and total hashes hold `started`, `end:<stage>`, `sent`, `delivered`, `failed`,
 * `t:<from>><to>` (transitions taken) and `x:<leaf>:<stage>` (drop-offs).
 */
export const activeCounters = (location: string, bot: string) => `act:${location}:${bot}`;
export const dayCounters = (location: string, bot: string, day: string) =>
  `day:${location}:${bot}:${day}`;
export const totalCounters = (location: string, bot: string) => `tot:${location}:${bot}`;

/** The gauge's total field: every active conversation of the bot. */
export const allStates = '*';

/** How long a day's hash is kept from its last change: the week it is read for, and a day. */
export const dayCountersTtlMs = 8 * 86_400_000;

/** The UTC day of a time, `yyyy-mm-dd`. */
export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The last `n` UTC days up to `now`'s, newest first. */
export function lastDays(now: number, n: number): string[] {
  return Array.from({ length: n }, (_, i) => dayOf(now - i * 86_400_000));
}

/** What a message the service accepted adds to its bot's tallies (the sender's `recordSent`). */
export function sentCounters(
  message: { location: string; botId: string },
  now: number,
): { name: string; field: string; by: number; ttlMs?: number }[] {
  return [
    {
      name: dayCounters(message.location, message.botId, dayOf(now)),
      field: 'sent',
      by: 1,
      ttlMs: dayCountersTtlMs,
    },
    { name: totalCounters(message.location, message.botId), field: 'sent', by: 1 },
  ];
}
