import type { ConversationRecord } from '../store/records.ts';

/**
 * The conversation records this process last wrote or read, by conversation id, the oldest
 * dropped past `capacity`. The web role runs a reply's step inline from it (`ingestStep`): the
 * store commits only when the record's seq is still the cached one, so a stale entry costs a
 * fallback to the mailbox, never a wrong step.
 */
export class RecordCache {
  private readonly records = new Map<string, ConversationRecord>();

  constructor(private readonly capacity = 10_000) {}

  get(id: string): ConversationRecord | undefined {
    return this.records.get(id);
  }

  set(id: string, record: ConversationRecord): void {
    // Re-inserted, so the map's order is the order of last use.
    this.records.delete(id);
    this.records.set(id, record);
    if (this.records.size > this.capacity) {
      const oldest = this.records.keys().next().value;
      if (oldest !== undefined) this.records.delete(oldest);
    }
  }

  delete(id: string): void {
    this.records.delete(id);
  }
}
