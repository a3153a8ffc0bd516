import type { Writable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { ConversationResult } from '../store/records.ts';
import type { Store } from '../store/store.ts';
import { listResults, type ResultsQuery } from './list-results.ts';

export type ResultFormat = 'csv' | 'json';

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
 * phone; an API start's key). A CSV cell starting with `=`, `+`, `-` or `@` is escaped, so that
 * a spreadsheet shows what a person texted rather than runs it. CSV needs every field name
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
  options: ResultsQuery & { format: ResultFormat },
): Promise<number> {
  const { format, ...query } = options;
  let count = 0;
  if (format === 'json') {
    out.write('[');
    for await (const batch of listResults(store, botId, query)) {
      for (const result of batch) {
        out.write(`${count++ === 0 ? '\n' : ',\n'}${JSON.stringify(shown(result))}`);
      }
    }
    out.write(count === 0 ? ']\n' : '\n]\n');
    return count;
  }
  const fields: string[] = [];
  const known = new Set<string>();
  for await (const batch of listResults(store, botId, query)) {
    for (const result of batch) {
      for (const name of Object.keys(result.fields)) {
        if (!known.has(name)) fields.push(name);
        known.add(name);
      }
    }
  }
  out.write(stringify([[...fixedColumns, ...fields]], { escape_formulas: true }));
  for await (const batch of listResults(store, botId, query)) {
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

function shown(result: ConversationResult) {
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
