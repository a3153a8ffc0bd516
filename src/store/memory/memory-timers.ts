import type { TimerRecord } from '../records.ts';
import { timerEventJsonStart } from '../timer-event-json.ts';

/** A timer as the memory store keeps it. */
export interface StoredTimer {
  /** The conversation id (`<location>:<phone>`). */
  conversation: string;
  dueAt: number;
  /** What `rf:{pN}:timer:<id>` holds on Redis: its TimerEvent JSON, less `receivedAt` and '}'. */
  eventStart: string;
}

interface HeapEntry {
  dueAt: number;
  id: string;
}

/** Redis orders a zset by score, then by member: so does the heap, and so do both drivers' answers. */
const before = (a: HeapEntry, b: HeapEntry) =>
  a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.id < b.id);

/**
 * The timers of one partition: a binary min-heap by due time, so taking the due ones costs
 * O(log n) each whatever the number of timers, and no timer holds a `setTimeout`. Replaced and
 * cancelled timers leave their heap entry behind (an entry counts only while `timers` maps its
 * id to the same due time); the heap is rebuilt when such entries outnumber the live ones.
 */
export class MemoryTimers {
  private heap: HeapEntry[] = [];
  private readonly timers = new Map<string, StoredTimer>();
  /** conversation id → its timer ids (the `conv-timers` zset of Redis). */
  private readonly byConversation = new Map<string, Set<string>>();

  /** Writes a timer, replacing one with the same id. */
  set(conversation: string, timer: TimerRecord): void {
    const ids = this.byConversation.get(conversation) ?? new Set<string>();
    this.byConversation.set(conversation, ids.add(timer.id));
    this.timers.set(timer.id, {
      conversation,
      dueAt: timer.dueAt,
      eventStart: timerEventJsonStart(timer),
    });
    this.push({ dueAt: timer.dueAt, id: timer.id });
    if (this.heap.length > 2 * this.timers.size + 64) this.rebuild();
  }

  /** Deletes a timer of the conversation; an id it does not have changes nothing. */
  cancel(conversation: string, id: string): void {
    if (this.byConversation.get(conversation)?.has(id)) this.remove(conversation, id);
  }

  /** The conversation's timers (`eventStart` of each), soonest first. */
  pending(conversation: string): string[] {
    const ids = [...(this.byConversation.get(conversation) ?? [])];
    return ids
      .map((id) => ({ id, ...this.timers.get(id)! }))
      .sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0))
      .map((timer) => timer.eventStart);
  }

  /** The earliest due time, or null when there are no timers. */
  next(): number | null {
    this.dropStaleTop();
    return this.heap[0]?.dueAt ?? null;
  }

  /** Removes and returns up to `limit` timers due at or before `now`, soonest first. */
  takeDue(now: number, limit: number): Array<StoredTimer & { id: string }> {
    const due: Array<StoredTimer & { id: string }> = [];
    while (due.length < limit) {
      this.dropStaleTop();
      const top = this.heap[0];
      if (!top || top.dueAt > now) break;
      this.pop();
      const timer = this.timers.get(top.id)!;
      this.remove(timer.conversation, top.id);
      due.push({ ...timer, id: top.id });
    }
    return due;
  }

  private remove(conversation: string, id: string): void {
    this.timers.delete(id);
    const ids = this.byConversation.get(conversation);
    ids?.delete(id);
    if (ids?.size === 0) this.byConversation.delete(conversation);
  }

  private isLive(entry: HeapEntry): boolean {
    return this.timers.get(entry.id)?.dueAt === entry.dueAt;
  }

  private dropStaleTop(): void {
    while (this.heap[0] && !this.isLive(this.heap[0])) this.pop();
  }

  private rebuild(): void {
    const live = this.heap.filter((entry) => this.isLive(entry));
    // A timer set twice with the same due time has two live-looking entries: keep one.
    const seen = new Set<string>();
    this.heap = [];
    for (const entry of live) {
      if (seen.has(entry.id)) continue;
      seen.add(entry.id);
      this.push(entry);
    }
  }

  private push(entry: HeapEntry): void {
    const heap = this.heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop()!;
    if (heap.length === 0) return;
    heap[0] = last;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < heap.length && before(heap[left]!, heap[smallest]!)) smallest = left;
      if (right < heap.length && before(heap[right]!, heap[smallest]!)) smallest = right;
      if (smallest === i) return;
      [heap[i], heap[smallest]] = [heap[smallest]!, heap[i]!];
      i = smallest;
    }
  }
}
