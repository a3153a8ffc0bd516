import { errorCodes } from '../errors.ts';
import { chunksFor } from '../store/campaign-id.ts';
import type { CampaignMeta, RecipientRow, SkipReason } from '../store/campaign-records.ts';
import type { UpsertOutcome } from '../store/campaign-store.ts';
import type { Store } from '../store/store.ts';
import { CampaignError } from './campaign-error.ts';

/** One row of a recipient file as the reader made it: a recipient with its time, or why not. */
export type ImportRow =
  | { line: number; phone: string; input: unknown; at: number; timeZone?: string }
  | { line: number; phone?: string; excluded: SkipReason; message: string };

/** What a campaign is, before its rows (`replyflow campaigns create`, `POST /admin/campaigns`). */
export type CampaignDefinition = Omit<
  CampaignMeta,
  'v' | 'status' | 'chunks' | 'generation' | 'createdAt' | 'updatedAt'
>;

/** What an import did, row by row, in totals. */
export interface ImportOutcome extends UpsertOutcome {
  meta: CampaignMeta;
  rows: number;
  /** Rows excluded by the reader (bad phone, input or date, past due, duplicate phone), by reason. */
  excluded: Partial<Record<SkipReason, number>>;
  /** Recipients an earlier import named and this one does not: cancelled. */
  cancelled: number;
}

/** Rows stored per store call: one call per partition each time. */
const batchRows = 500;

/**
 * Creates a campaign or, under the same name, imports its file again: each row is one
 * recipient, stored in one atomic call with its counters (added; unchanged when its time and
 * input are; rescheduled otherwise; skipped `opted_out` when its phone opted out), every row the
 * reader excluded is kept too, as skipped with its reason, so the counts add up to the file's
 * rows. Once the file is read, the recipients an earlier import named and this one does not
 * are cancelled. Streams: a batch of rows in memory at a time.
 *
 * @example
 * await importCampaign(store, definition, readRecipients(file, options), { now: Date.now() });
 */
export async function importCampaign(
  store: Store,
  definition: CampaignDefinition,
  rows: AsyncIterable<ImportRow>,
  options: { now: number; expectedRows?: number; onRow?: (row: ImportRow) => void },
): Promise<ImportOutcome> {
  const known = await store.getCampaign(definition);
  refuseReimport(known, definition.name, definition.bot);
  const meta: CampaignMeta = {
    ...definition,
    v: 1,
    status: known?.status ?? 'active',
    // A campaign's chunks are fixed for its life: its rows' places depend on them.
    chunks: known?.chunks ?? chunksFor(options.expectedRows ?? 1, store.partitions),
    generation: (known?.generation ?? 0) + 1,
    createdAt: known?.createdAt ?? options.now,
    updatedAt: options.now,
  };
  // The definition first: the runner fires only what it can read the campaign of.
  await store.saveCampaign(meta);
  const outcome: ImportOutcome = {
    meta,
    rows: 0,
    added: 0,
    rescheduled: 0,
    unchanged: 0,
    optedOut: 0,
    excluded: {},
    cancelled: 0,
  };
  let batch: RecipientRow[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const done = await store.upsertRecipients(meta, meta.generation, batch);
    outcome.added += done.added;
    outcome.rescheduled += done.rescheduled;
    outcome.unchanged += done.unchanged;
    outcome.optedOut += done.optedOut;
    batch = [];
  };
  for await (const row of rows) {
    outcome.rows++;
    options.onRow?.(row);
    batch.push(recipientRowOf(row, meta.timeZone));
    if ('excluded' in row)
      outcome.excluded[row.excluded] = (outcome.excluded[row.excluded] ?? 0) + 1;
    if (batch.length >= batchRows) await flush();
  }
  await flush();
  outcome.cancelled = await store.sweepRecipients(meta, meta.generation);
  return outcome;
}

/**
 * Refuses to import under a name taken by another bot's campaign or by a cancelled one (409):
 * the import's own check, and a dry run's.
 */
export function refuseReimport(known: CampaignMeta | null, name: string, bot: string): void {
  if (known && known.bot !== bot) {
    throw new CampaignError(
      errorCodes.CAMPAIGN_CONFLICT,
      `campaign '${name}' runs bot '${known.bot}', not '${bot}': use another name`,
    );
  }
  if (known?.status === 'cancelled') {
    throw new CampaignError(
      errorCodes.CAMPAIGN_CONFLICT,
      `campaign '${name}' was cancelled: it never fires again (create one under another name)`,
    );
  }
}

/**
 * A row as stored: a recipient keyed by its phone; an excluded row by its phone when it has a
 * usable one of its own (a later import that fixes it reschedules it), else by its line (a bad
 * or repeated phone: `#<line>`).
 */
function recipientRowOf(row: ImportRow, campaignTimeZone: string): RecipientRow {
  if (!('excluded' in row)) {
    // Kept only when it is the row's own: most rows share the campaign's (bytes per recipient).
    const own =
      row.timeZone !== undefined && row.timeZone !== campaignTimeZone ? row.timeZone : undefined;
    return new StoredRow(row.phone, new ScheduledRecord(row.at, row.line, row.input, own));
  }
  const keyedByPhone = row.phone !== undefined && row.excluded !== 'duplicate';
  return new StoredRow(
    keyedByPhone ? row.phone! : `#${row.line}`,
    new SkippedRecord(row.excluded, row.line),
  );
}

// A batch's rows are made by constructors, not object literals. A batch lives through the
// store's round trip, so a young collection then found most objects of a literal's allocation
// site alive, and V8 pretenured the site: every later row was allocated in the old generation,
// with the strings and input it points to promoted after it, garbage that only a full collection
// frees. Half of what a million-row import promoted (bench/campaigns, docs/benchmarks.md).

class StoredRow implements RecipientRow {
  constructor(
    readonly row: string,
    readonly record: RecipientRow['record'],
  ) {}
}

class ScheduledRecord {
  readonly state = 'scheduled';
  declare readonly timeZone?: string;
  constructor(
    readonly due: number,
    readonly line: number,
    readonly input: unknown,
    timeZone: string | undefined,
  ) {
    if (timeZone !== undefined) this.timeZone = timeZone;
  }
}

class SkippedRecord {
  readonly state = 'skipped';
  constructor(
    readonly reason: SkipReason,
    readonly line: number,
  ) {}
}
