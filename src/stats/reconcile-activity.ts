import { gaugePaths } from '../conversation/count-activity.ts';
import type { Store } from '../store/store.ts';
import { activeCounters } from './counter-names.ts';

type Counters = Record<string, number>;

/** What a reconciliation found and did. */
export interface ReconcileReport {
  /** Active conversation records read (each once). */
  records: number;
  /** Corrections made: gauge name, field, by how much. */
  corrected: { name: string; field: string; by: number }[];
  /** Fields that moved while the records were read, left for the next round. */
  skipped: number;
  rounds: number;
}

export interface ReconcileOptions {
  /** Bots known to exist (gauges to check even with no active record): location × bot. */
  bots?: { location: string; bot: string }[];
  /** Records read per SCAN page. */
  pageSize?: number;
  /** Rounds at most while fields move under the read. */
  maxRounds?: number;
}

/**
 * Recounts the conversations active in each state from their records, and corrects the gauges
 * (`act:<location>:<bot>`) that drifted from them (a commit made by an older version, a bug, a
 * hand edit). The commits keep moving the gauges while the records are read, so each gauge is
 * read before and after the read of the records: a field that moved meanwhile is left alone (a
 * conversation moved through it; the recount may have seen it either side), one that did not is
 * set to the recount. Fields left alone are tried again, up to `maxRounds` rounds.
 */
export async function reconcileActivity(
  store: Pick<Store, 'scanConversations' | 'readCounters' | 'adjustCounters'>,
  options: ReconcileOptions = {},
): Promise<ReconcileReport> {
  const report: ReconcileReport = { records: 0, corrected: [], skipped: 0, rounds: 0 };
  const known = new Set((options.bots ?? []).map((b) => activeCounters(b.location, b.bot)));
  const maxRounds = options.maxRounds ?? 3;
  for (let round = 1; round <= maxRounds; round++) {
    report.rounds = round;
    const names = [...known];
    const before = await readAll(store, names);
    const { expected, records } = await recount(store, options.pageSize ?? 500);
    report.records = records;
    for (const name of expected.keys()) known.add(name);
    const all = [...known];
    const after = await readAll(store, all);
    // A gauge first seen in the recount has no earlier read: its read after stands for both.
    const earlier = (name: string) => before.get(name) ?? after.get(name) ?? {};
    let skipped = 0;
    const changes: { name: string; field: string; by: number; ttlMs: number }[] = [];
    for (const name of all) {
      const want = expected.get(name) ?? {};
      const was = earlier(name);
      const now = after.get(name) ?? {};
      for (const field of new Set([
        ...Object.keys(want),
        ...Object.keys(now),
        ...Object.keys(was),
      ])) {
        const by = (want[field] ?? 0) - (now[field] ?? 0);
        if (by === 0) continue;
        if ((was[field] ?? 0) !== (now[field] ?? 0)) {
          skipped++;
          continue;
        }
        changes.push({ name, field, by, ttlMs: 0 });
      }
    }
    await store.adjustCounters(changes);
    report.corrected.push(...changes.map(({ name, field, by }) => ({ name, field, by })));
    report.skipped = skipped;
    if (skipped === 0) break;
  }
  return report;
}

async function readAll(
  store: Pick<Store, 'readCounters'>,
  names: string[],
): Promise<Map<string, Counters>> {
  const hashes = await Promise.all(names.map((name) => store.readCounters(name)));
  return new Map(names.map((name, i) => [name, hashes[i] ?? {}]));
}

async function recount(store: Pick<Store, 'scanConversations'>, pageSize: number) {
  const expected = new Map<string, Counters>();
  const seen = new Set<string>();
  let cursor = '0';
  do {
    const page = await store.scanConversations(cursor, pageSize);
    cursor = page.cursor;
    for (const record of page.records) {
      const id = `${record.location}\n${record.phone}`;
      if (record.status !== 'active' || seen.has(id)) continue;
      seen.add(id);
      const name = activeCounters(record.location, record.botId);
      const gauge = expected.get(name) ?? {};
      for (const path of gaugePaths(record)) gauge[path] = (gauge[path] ?? 0) + 1;
      expected.set(name, gauge);
    }
  } while (cursor !== '0');
  return { expected, records: seen.size };
}
