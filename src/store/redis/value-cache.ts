export interface ValueCache {
  /** The value as last read or written ('' for none), or undefined when not known here. */
  get(id: string): string | undefined;
  /** Forgets it: a write that failed or that merges in Lua (nobody here knows its result). */
  delete(id: string): void;
  /**
   * Whether the value known is a write still in flight (`sent`, not `settled` yet): what it
   * says of the applied log is not yet true in Redis.
   */
  inFlight(id: string): boolean;
  /**
   * A built write of `value` is being sent: from now on the value known is what Redis will hold
   * once the writes this process sent have run (so a write sent meanwhile builds on it), in
   * flight until `settled`. Answers its mark for `settled`. The caller
   * awaits the call itself (an extra async layer here would make the commit resolve later than
   * the ingest calls sent after it, and callers see Redis's order in the order calls resolve).
   */
  sent(id: string, value: string): number;
  /** The built write `sent` at `mark` was answered: confirmed when `written`, else forgotten. */
  settled(id: string, mark: number, written: boolean): void;
  /** A mark of the entry's last change, for `setUnlessChanged`. */
  mark(id: string): number;
  /**
   * `set`, for a value read: unless the entry changed since `mark` (a write sent while the read
   * was in flight set or forgot it, and the read answered what Redis held before that write).
   */
  setUnlessChanged(id: string, value: string, mark: number): void;
  /**
   * Whether a reply's look may answer from the value known here, with no read: while the values
   * known here were still Redis's in nearly all recent checks (`checked`). Several processes writing
   * the same conversations make them stale; reads then answer the looks until they are found
   * fresh again.
   */
  trusted(): boolean;
  /** A look answered from the value known of `id`: its commit checks it (`lookChecked`). */
  looked(id: string): void;
  /** Whether `id`'s value known here answered a look not checked yet (and forgets it). */
  lookChecked(id: string): boolean;
  /** A value known here was checked against Redis: `fresh` when Redis still held it. */
  checked(fresh: boolean): void;
}

/**
 * Each check's weight in the share of stale values (`trusted`), and the share that ends trust:
 * a stale look costs a refused commit and a step again (docs/benchmarks.md, "A reply's look
 * from the value known"), a read two plain commands, so a few stale looks in a hundred already
 * cost more than the reads they save. Two stale checks in a row end it.
 */
const checkWeight = 1 / 16;
const staleMost = 0.1;

/**
 * The conversation values this process read (a direct turn's look) or wrote (its commit, a
 * recorded send) last, by conversation id, so that the next write of a turn is built in the
 * process and sent whole, checked in Redis against the value it was built on (issue 26: Redis
 * compares and writes instead of cutting and joining the value in Lua). A value moved by anyone
 * since makes that check fail, and the write goes by the script that merges; so an entry is a
 * hint, never a truth: a stale one costs one call, never a wrong write. A write sets its value
 * when it is sent: one connection runs this process's calls in the order they were sent, so a
 * send recorded while its conversation's direct commit is in flight builds on what that commit
 * writes (it failing, the send's check fails too, and it merges). The oldest go past `max`.
 */
export function createValueCache(max = 2_048): ValueCache {
  /** By id: the value (undefined once forgotten), the change that left it, and whether a write still in flight did. */
  const known = new Map<
    string,
    { value: string | undefined; change: number; inFlight: boolean; looked?: boolean }
  >();
  let changes = 0;
  /** The recent checks' share of stale values, weighted toward the latest (`checkWeight`). */
  let staleShare = 0;
  const put = (id: string, value: string | undefined, inFlight: boolean) => {
    known.delete(id);
    known.set(id, { value, change: ++changes, inFlight });
    if (known.size > max) known.delete(known.keys().next().value as string);
  };
  return {
    get: (id) => known.get(id)?.value,
    delete: (id) => {
      if (known.get(id)?.value !== undefined) put(id, undefined, false);
    },
    inFlight: (id) => known.get(id)?.inFlight === true,
    sent(id, value) {
      put(id, value, true);
      return changes;
    },
    settled(id, mark, written) {
      if (!written) {
        if (known.get(id)?.value !== undefined) put(id, undefined, false);
        return;
      }
      const entry = known.get(id);
      if (entry?.change === mark) entry.inFlight = false;
    },
    mark: (id) => known.get(id)?.change ?? 0,
    setUnlessChanged(id, value, mark) {
      if ((known.get(id)?.change ?? 0) === mark) put(id, value, false);
    },
    trusted: () => staleShare < staleMost,
    looked(id) {
      const entry = known.get(id);
      if (entry) entry.looked = true;
    },
    lookChecked(id) {
      const entry = known.get(id);
      if (!entry?.looked) return false;
      entry.looked = false;
      return true;
    },
    checked(fresh) {
      staleShare += ((fresh ? 0 : 1) - staleShare) * checkWeight;
    },
  };
}
