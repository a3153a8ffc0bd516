import type { OutboundEvent } from '../../events/outbound-event.ts';
import { storableJson } from '../storable-json.ts';

/** An event as the Redis driver's value holds it (event-value.ts), the event kept as JSON. */
export interface MemoryEventEntry {
  json: string;
  attempts: number;
  queuedAt: number;
  lastError: string;
  deadAt: number;
  reason: string;
  /** The stored words (event-outbox.ts `progressWords`): keys that took it, `key=error` given up. */
  delivered: string;
  gaveUp: string;
}

/** The outbound events' outbox of one partition, shaped like its Redis keys (`evt`, `evt-dead`). */
export class MemoryEventOutbox {
  /** id → entry, and id → due time (ms) */
  readonly queued = new Map<string, MemoryEventEntry>();
  readonly due = new Map<string, number>();
  /** id → dead letter entry; `deadAt` orders them */
  readonly dead = new Map<string, MemoryEventEntry>();

  /** `onQueued`: told after events were queued (the store's `onEventsQueued`). */
  constructor(private readonly onQueued: () => void = () => {}) {}

  /** As commit-step-17.lua: due now; an id already queued is left as it is. */
  queue(events: readonly OutboundEvent[], now: number): void {
    let added = false;
    for (const event of events) {
      if (this.queued.has(event.id)) continue;
      added = true;
      this.queued.set(event.id, {
        json: storableJson(event),
        attempts: 0,
        queuedAt: now,
        lastError: '',
        deadAt: 0,
        reason: '',
        delivered: '',
        gaveUp: '',
      });
      this.due.set(event.id, now);
    }
    if (added) this.onQueued();
  }

  /** A dead letter queued again, due now (replay-event-4.lua); false when there is none. */
  replay(id: string, now: number): boolean {
    const entry = this.dead.get(id);
    if (!entry) return false;
    this.dead.delete(id);
    this.queued.set(id, {
      json: entry.json,
      attempts: 0,
      queuedAt: now,
      lastError: '',
      deadAt: 0,
      reason: '',
      // Those that took it keep it; those given up are tried again.
      delivered: entry.delivered,
      gaveUp: '',
    });
    this.due.set(id, now);
    this.onQueued();
    return true;
  }
}
