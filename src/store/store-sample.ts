/**
 * What a metrics scrape reads from the store (`Store.sample`), at a bounded cost: at most
 * `limit` conversation records are looked at, however many the store holds.
 */
export interface StoreSample {
  /** Active conversations among the records looked at, per bot and machine state. */
  active: Array<{ bot: string; state: string; count: number }>;
  /** Conversation records looked at (active or not). */
  scanned: number;
  /** False when the scan stopped at `limit`: `active` then counts part of the conversations. */
  complete: boolean;
  /** Conversations with messages waiting in their outbox (being sent included). */
  outboxDepth: number;
  /** Dead letters kept (capped at `storeLimits.deadLetterCap`). */
  deadLetters: number;
}

/**
 * The state of a persisted XState snapshot as one label: `asking`, or `booking.confirming` for
 * a nested state (the first region of a parallel one), so a label never grows with the data.
 */
export function stateLabel(snapshot: unknown): string {
  let value = (snapshot as { value?: unknown } | null)?.value;
  const path: string[] = [];
  while (value && typeof value === 'object' && path.length < 8) {
    const [first] = Object.keys(value);
    if (first === undefined) break;
    path.push(first);
    value = (value as Record<string, unknown>)[first];
  }
  if (typeof value === 'string') path.push(value);
  return path.length > 0 ? path.join('.') : 'unknown';
}

/** Counts active conversations per (bot, state) from the records looked at. */
export function tallyActive(
  records: Iterable<{ botId: string; status: string; snapshot: unknown } | null>,
): StoreSample['active'] {
  const counts = new Map<string, { bot: string; state: string; count: number }>();
  for (const record of records) {
    if (record?.status !== 'active') continue;
    const state = stateLabel(record.snapshot);
    const key = `${record.botId}\u0000${state}`;
    const entry = counts.get(key) ?? { bot: record.botId, state, count: 0 };
    entry.count++;
    counts.set(key, entry);
  }
  return [...counts.values()];
}
