import type { Writable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import { maskPhone } from '../observability/mask-phone.ts';
import { maskPhonesInText } from '../observability/mask-phones-in-text.ts';
import type { ConversationResult } from '../store/records.ts';
import type { Store } from '../store/store.ts';
import { listResults, type ResultsQuery } from './list-results.ts';

export type ResultFormat = 'csv' | 'json';

/** What `writeResults` writes: the query, the format, and what to hold back. */
export interface WriteResultsOptions extends ResultsQuery {
  format: ResultFormat;
  /** Only conversations started before this time (ms). */
  until?: number;
  /**
   * Phone numbers masked (`336•••••678`): the phone, the row key and any number inside a
   * recorded text (the dashboard's read-only export).
   */
  maskPhones?: boolean;
}

/** The fixed columns of a result, before the bot's recorded fields. */
const fixedColumns = [
  'location',
  'phone',
  'bot',
  'botVersion',
  'runId',
  'startedAt',
  'endedAt',
  'endCode',
  'campaign',
  'row',
] as const;

/**
 * Streams a bot's results to `out`: CSV (a header, the fixed columns then one column per
 * recorded field, in order of first appearance) or a JSON array. Times are ISO 8601 UTC. A run
 * a campaign started carries it: `campaign` (its name) and `row` (the recipient's row key, its
 * phone; an API start's key). A CSV cell starting with `=`, `+`, `-`, `@`, a tab or a carriage
 * return (OWASP's list, and their full-width forms) is prefixed with `'`, so that a spreadsheet
 * shows what a person texted rather than runs it. CSV needs every field name
 * before the first row, so it reads the results twice; JSON once. Resolves to the number of
 * results written.
 *
 * @example
 * await writeResults(store, 'survey', process.stdout, { format: 'csv', since: Date.parse('2026-12-01') });
 */
export async function writeResults(
  store: Pick<Store, 'listResults' | 'scanConversations'>,
  botId: string,
  out: Writable,
  options: WriteResultsOptions,
): Promise<number> {
  const { format, until, maskPhones, ...query } = options;
  const kept = async function* () {
    for await (const batch of listResults(store, botId, query)) {
      const within = until === undefined ? batch : batch.filter((r) => r.startedAt < until);
      if (within.length > 0) yield maskPhones ? within.map(maskedResult) : within;
    }
  };
  let count = 0;
  if (format === 'json') {
    out.write('[');
    for await (const batch of kept()) {
      for (const result of batch) {
        out.write(`${count++ === 0 ? '\n' : ',\n'}${JSON.stringify(shown(result))}`);
      }
    }
    out.write(count === 0 ? ']\n' : '\n]\n');
    return count;
  }
  const fields: string[] = [];
  const known = new Set<string>();
  for await (const batch of kept()) {
    for (const result of batch) {
      for (const name of Object.keys(result.fields)) {
        if (!known.has(name)) fields.push(name);
        known.add(name);
      }
    }
  }
  out.write(stringify([[...fixedColumns, ...fields]], { escape_formulas: true }));
  for await (const batch of kept()) {
    const rows = batch.map((result) => {
      const row = shown(result);
      return [
        ...fixedColumns.map((column) => row[column] ?? ''),
        ...fields.map((name) => cell(result.fields[name])),
      ];
    });
    count += rows.length;
    out.write(stringify(rows, { escape_formulas: true }));
  }
  return count;
}

/**
 * A result with its phone numbers masked: the phone, the row key (a campaign's is the phone), the
 * run id and any number in a recorded text.
 *
 * @example
 * maskedResult(result).phone; // '336•••••678'
 */
export function maskedResult(result: ConversationResult): ConversationResult {
  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(result.fields)) {
    fields[name] = typeof value === 'string' ? maskPhonesInText(value) : value;
  }
  return {
    ...result,
    phone: maskPhone(result.phone),
    // An id may be made of a phone (a keyed start's key).
    runId: maskPhonesInText(result.runId),
    fields,
    ...(result.campaign && {
      campaign: { ...result.campaign, row: maskPhonesInText(result.campaign.row) },
    }),
  };
}

/** A result as written: times in ISO 8601 UTC, the campaign as its name and row. */
export function shown(result: ConversationResult) {
  return {
    location: result.location,
    phone: result.phone,
    bot: result.bot,
    botVersion: result.botVersion,
    runId: result.runId,
    startedAt: new Date(result.startedAt).toISOString(),
    endedAt: result.endedAt === undefined ? undefined : new Date(result.endedAt).toISOString(),
    endCode: result.endCode,
    campaign: result.campaign?.name,
    row: result.campaign?.row,
    fields: result.fields,
  };
}

/** A recorded value as a CSV cell: strings as they are, anything else as JSON. */
function cell(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
