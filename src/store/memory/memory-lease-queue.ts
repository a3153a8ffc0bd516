/**
 * The outbox's two bands of ready times (answers first, src/store/README.md): a conversation
 * waiting with bot-initiated items only belongs at `botBandMs` + its ready time, behind every
 * other one.
 */
export interface ReadyBands {
  botBandMs: number;
  /** Whether the items (JSON) were all queued by the bot on its own (`botInitiated`). */
  botInitiatedOnly(items: readonly string[]): boolean;
  /** Claim the other conversations only, leaving the bot-initiated band alone. */
  answersOnly?: boolean;
}

/**
 * One lease queue in process memory, with the semantics of the Redis driver's scripts: a list
 * of JSON items per conversation, a ready map per partition (conversation id → the time it may
 * be claimed) and a lock per conversation (token and lease length). As on Redis, the ready time
 * is the lease: a claimer whose `now` has passed it takes the conversation over with a new
 * token, and the old token stops holding the lock.
 */
export class MemoryLeaseQueue {
  private readonly lists = new Map<string, string[]>();
  private readonly ready: Map<string, number>[];
  private readonly locks = new Map<string, { token: string; leaseMs: number }>();

  constructor(partitions: number) {
    this.ready = Array.from({ length: partitions }, () => new Map<string, number>());
  }

  items(id: string): readonly string[] {
    return this.lists.get(id) ?? [];
  }

  /** Conversations whose list holds items (empty lists are dropped). */
  get size(): number {
    return this.lists.size;
  }

  head(id: string): string | null {
    return this.lists.get(id)?.[0] ?? null;
  }

  /**
   * Appends items and makes the conversation ready at `now` unless it already has a ready time;
   * returns whether it made it ready.
   */
  append(id: string, partition: number, items: string[], now: number): boolean {
    if (items.length === 0) return false;
    const list = this.lists.get(id) ?? [];
    list.push(...items);
    this.lists.set(id, list);
    const ready = this.readyOf(partition);
    if (ready.has(id)) return false;
    ready.set(id, now);
    return true;
  }

  /**
   * Moves an unlocked conversation's ready time back to `at` when it is later (Redis `ZADD LT`);
   * returns whether it moved.
   */
  readyBy(id: string, partition: number, at: number): boolean {
    const ready = this.readyOf(partition);
    const current = ready.get(id);
    if (this.locks.has(id) || current === undefined || current <= at) return false;
    ready.set(id, at);
    return true;
  }

  /** How many conversations of the partition may be claimed at `now` (ready time passed). */
  dueCount(partition: number, now: number): number {
    let due = 0;
    for (const at of this.readyOf(partition).values()) if (at <= now) due++;
    return due;
  }

  /**
   * The earliest ready time in the partition (a lease's end for a claimed one), or null; with
   * `botBandMs`, a time in the bot-initiated band counts as its own.
   */
  earliestReady(partition: number, botBandMs = Number.POSITIVE_INFINITY): number | null {
    let earliest: number | null = null;
    for (const stored of this.readyOf(partition).values()) {
      const at = stored >= botBandMs ? stored - botBandMs : stored;
      if (earliest === null || at < earliest) earliest = at;
    }
    return earliest;
  }

  pop(id: string): void {
    const list = this.lists.get(id);
    list?.shift();
    if (list?.length === 0) this.lists.delete(id);
  }

  /** Moves the first `count` items to the tail, in their order. */
  rotate(id: string, count: number): void {
    const list = this.lists.get(id);
    if (list) list.push(...list.splice(0, count));
  }

  replaceHead(id: string, item: string): void {
    const list = this.lists.get(id);
    if (list && list.length > 0) list[0] = item;
  }

  /**
   * Claims the conversation ready longest whose ready time has come. `takenOver`: a lock was
   * still there, left by a holder whose lease ran out (locks never expire on their own here;
   * the Redis driver keeps outbox locks the same way). With `bands` (the outbox), as
   * claim-8.lua: the other conversations first, then the bot-initiated band; an unlocked
   * bot-initiated one found among the others moves to its band first.
   */
  claim(
    partition: number,
    leaseMs: number,
    now: number,
    token: string,
    bands?: ReadyBands,
  ): { id: string; takenOver: boolean } | null {
    const ready = this.readyOf(partition);
    for (;;) {
      let [due, dueAt] = this.earliestWithin(ready, Number.NEGATIVE_INFINITY, now);
      let inBand = false;
      if (due === null && bands && !bands.answersOnly) {
        [due, dueAt] = this.earliestWithin(ready, bands.botBandMs, bands.botBandMs + now);
        inBand = true;
      }
      if (due === null) return null;
      if (this.items(due).length === 0) {
        ready.delete(due);
        // Its lease has passed and nothing is left: a lock left here is nobody's.
        this.locks.delete(due);
        continue;
      }
      if (bands && !inBand && !this.locks.has(due) && bands.botInitiatedOnly(this.items(due))) {
        ready.set(due, bands.botBandMs + dueAt);
        continue;
      }
      const takenOver = this.locks.has(due);
      this.locks.set(due, { token, leaseMs });
      ready.set(due, now + leaseMs);
      return { id: due, takenOver };
    }
  }

  /**
   * Claims one conversation directly when it has no lock (a lock whose lease has passed is
   * left to `claim`, which reports the takeover), as `claim` would; returns whether it did.
   */
  claimId(id: string, partition: number, leaseMs: number, now: number, token: string): boolean {
    const ready = this.readyOf(partition);
    if (this.locks.has(id)) return false;
    this.locks.set(id, { token, leaseMs });
    ready.set(id, now + leaseMs);
    return true;
  }

  /** Whether some claim holds the conversation's lock. */
  locked(id: string): boolean {
    return this.locks.has(id);
  }

  holds(id: string, token: string): boolean {
    return this.locks.get(id)?.token === token;
  }

  /** Pushes the lease of a held lock to `now + lease` (the claim's own, unless `leaseMs` is given). */
  extend(id: string, partition: number, now: number, leaseMs?: number): void {
    const lock = this.locks.get(id);
    const ready = this.readyOf(partition);
    if (lock && ready.has(id)) ready.set(id, now + (leaseMs ?? lock.leaseMs));
  }

  /** Deletes the lock when `token` holds it; the conversation stays ready at `readyAt` if it has items. Returns whether it was ready by `now`. */
  release(id: string, partition: number, token: string, readyAt: number, now: number): boolean {
    if (!this.holds(id, token)) return false;
    this.locks.delete(id);
    const ready = this.readyOf(partition);
    if (this.items(id).length === 0) {
      ready.delete(id);
      return false;
    }
    ready.set(id, readyAt);
    return readyAt <= now;
  }

  /** The conversation with the earliest ready time in [from, to] (ties: the smaller id, as a zset). */
  private earliestWithin(
    ready: Map<string, number>,
    from: number,
    to: number,
  ): [string | null, number] {
    let due: string | null = null;
    let dueAt = Number.POSITIVE_INFINITY;
    for (const [id, at] of ready) {
      if (at >= from && at <= to && (at < dueAt || (at === dueAt && due !== null && id < due))) {
        due = id;
        dueAt = at;
      }
    }
    return [due, dueAt];
  }

  private readyOf(partition: number): Map<string, number> {
    const ready = this.ready[partition];
    if (!ready) throw new RangeError(`partition ${partition} does not exist`);
    return ready;
  }
}
