import type {
  CampaignChunk,
  CampaignMeta,
  CampaignRef,
  CampaignStatus,
  FiringDecision,
  FiringOutcome,
  RecipientEntry,
  RecipientRow,
} from './campaign-records.ts';
import type { CounterChange } from './store.ts';

/** What an import batch did. */
export interface UpsertOutcome {
  added: number;
  /** Named before with another time or input: rescheduled (a new revision). */
  rescheduled: number;
  unchanged: number;
  /** Rows to start whose phone opted out: skipped, `opted_out`. */
  optedOut: number;
}

/**
 * The store's part of campaigns (src/campaigns/). A campaign's recipients live in the partition
 * of their phone, spread over `meta.chunks` hashes there, so firing one (its start event pushed
 * into the phone's mailbox) is one atomic call with its state and its counters. Each
 * partition's due index holds its campaigns at their earliest waiting recipient, and each
 * campaign its chunks likewise: the runner reads what is due, never the list.
 */
export interface CampaignStore {
  /** Writes a campaign's definition (its location's campaigns hash). */
  saveCampaign(meta: CampaignMeta): Promise<void>;
  getCampaign(ref: CampaignRef): Promise<CampaignMeta | null>;
  /** The campaigns of a location (all locations' when absent), by name. */
  listCampaigns(location?: string): Promise<CampaignMeta[]>;
  /** Forgets a campaign's definition (its recipients' keys expire on their own once none waits). */
  deleteCampaign(ref: CampaignRef): Promise<void>;
  /**
   * Sets a campaign's state in every partition: `paused` and `cancelled` fire nothing more from
   * the moment each partition's call returns; `active` puts it back in the due index. The
   * definition's `status` is the caller's to save.
   */
  setCampaignState(meta: CampaignMeta, state: CampaignStatus): Promise<void>;
  /**
   * Imports rows (each in the partition of its row key; see `RecipientRow`) for the import
   * `generation`, atomically per row with its counters: added, unchanged, or rescheduled.
   */
  upsertRecipients(
    meta: CampaignMeta,
    generation: number,
    rows: readonly RecipientRow[],
  ): Promise<UpsertOutcome>;
  /**
   * After the import `generation` (or for a cancel, with a generation above every import): the
   * recipients still waiting that it did not name become skipped, `cancelled`; rows without a
   * phone that it did not name go, unless `keepRowsWithoutPhone` (a cancel: the bad rows stay
   * counted, as the file had them). Answers how many were cancelled.
   */
  sweepRecipients(
    meta: CampaignMeta,
    generation: number,
    options?: { keepRowsWithoutPhone?: boolean },
  ): Promise<number>;
  /**
   * Drops the campaign's recipients in `partition` that ended (started, skipped or failed) at a
   * time (`due`) before `endedBefore`, with their counters; answers how many. Waiting ones
   * (scheduled, held) stay whatever their time. The API's keyed starts are pruned so once they
   * are older than the retention (a key is remembered that long, no longer).
   */
  pruneRecipients(meta: CampaignMeta, partition: number, endedBefore: number): Promise<number>;
  /** The campaign's recipients per state field (`scheduled`, `skipped:opted_out`…), summed over the partitions. */
  campaignCounts(ref: CampaignRef): Promise<Record<string, number>>;
  /**
   * A recipient by its row key alone, whatever partition its phone put it in (one read per
   * partition): an API start is found by its key.
   */
  findRecipient(
    meta: CampaignMeta,
    row: string,
  ): Promise<{ chunk: CampaignChunk; entry: RecipientEntry } | null>;
  /** Every recipient of the campaign, chunk by chunk (for `show`, exports and tests; not for screens). */
  scanRecipients(meta: CampaignMeta): AsyncIterable<RecipientEntry[]>;

  /** The earliest time a recipient of an active campaign waits for in the partition. */
  nextCampaignDue(partition: number): Promise<number | undefined>;
  /**
   * Claims up to `max` chunks with a recipient due by `now` in the partition, hiding them from
   * other runners until `now + leaseMs` (a runner that dies leaves them to the next).
   */
  claimDueChunks(
    partition: number,
    now: number,
    leaseMs: number,
    max: number,
  ): Promise<CampaignChunk[]>;
  /** A chunk's recipients. */
  readChunk(chunk: CampaignChunk): Promise<RecipientEntry[]>;
  /**
   * Applies the runner's decisions, each only when its recipient is as read (same revision,
   * still waiting). `paused` / `cancelled`: the campaign does not fire, nothing was applied.
   */
  fireRecipients(
    chunk: CampaignChunk,
    decisions: readonly FiringDecision[],
    now: number,
  ): Promise<{ state: 'active'; outcomes: FiringOutcome[] } | { state: 'paused' | 'cancelled' }>;
  /**
   * Puts a claimed chunk back at its next due time; answers the campaign's next one in the
   * partition. When none of its recipients waits there any more, the campaign's keys there expire
   * after the retention (`chunks`: the campaign's chunks per partition).
   */
  settleChunk(chunk: CampaignChunk, chunks: number): Promise<number | undefined>;
  /** Hears "a campaign's earliest recipient in `partition` moved to `dueAt`" from any process. */
  onCampaignDue(listener: (partition: number, dueAt: number) => void): () => void;

  /** A counters hash summed over the partitions (the commits' `counters`). */
  readCounters(name: string): Promise<Record<string, number>>;

  /**
   * Moves counters outside a step, as a commit's `counters` would (a gauge's field counted to 0
   * goes), atomically: what the activity reconciliation corrects. Read sums over the partitions,
   * so it writes in partition 0.
   */
  adjustCounters(changes: readonly CounterChange[]): Promise<void>;

  /**
   * Takes a periodic task's lease (the activity reconciliation) for `ttlMs` when no process
   * holds it: true when this call took it. Lets one process of many do the task each period.
   */
  leaseTask(name: string, token: string, now: number, ttlMs: number): Promise<boolean>;
}
