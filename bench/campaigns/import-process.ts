// One import variant alone in its own process, so that its peak RSS is its own: `replyflow`
// (readRecipients + sendTimeOf + the summary + the errors file) or `baseline` (what a user
// writes by hand: csv-parse piped into a loop that normalises the phone). Started by
// `import-phase.ts`; answers `run`.
import { createReadStream } from 'node:fs';
import { parse } from 'csv-parse';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { openErrorsFile } from '../../src/campaigns/errors-file.ts';
import { createImportSummary } from '../../src/campaigns/import-summary.ts';
import { readRecipients } from '../../src/campaigns/read-recipients.ts';
import type { SendTimeSpec } from '../../src/campaigns/send-time.ts';
import { serveParent } from '../lib/child.ts';
import { startMemoryPeak } from '../timers/memory-peak.ts';

export type ImportVariant = 'replyflow' | 'baseline';

export interface ImportRequest {
  variant: ImportVariant;
  path: string;
  errorsPath: string;
  now: number;
  /** The file's rows, as a caller would estimate them from its size. */
  expectedRows: number;
}

/** Rows between two full collections that measure what the process really holds. */
const liveEvery = 250_000;

export interface ImportMeasure {
  /** Data rows the variant gave a result for (the baseline skips what csv-parse cannot read). */
  rows: number;
  accepted: number;
  byReason: Record<string, number>;
  seconds: number;
  memory: ReturnType<ReturnType<typeof startMemoryPeak>['stop']>;
}

/** The campaign of the bench: a reminder the day before, in office hours, late by 6 h at most. */
const send: SendTimeSpec = {
  relativeTo: 'at',
  offset: '-1d',
  timeZone: 'Europe/Paris',
  window: '09:00-19:00',
  past: { kind: 'sendIfWithin', ms: 6 * 3_600_000 },
};

async function runReplyflow(
  { path, errorsPath, now, expectedRows }: ImportRequest,
  live: () => void,
) {
  const summary = createImportSummary();
  const errors = await openErrorsFile(errorsPath);
  const rows = readRecipients(createReadStream(path), {
    fileName: path,
    timeZoneColumn: 'tz',
    defaultCountry: 'FR',
    send,
    now,
    expectedRows,
  });
  let read = 0;
  for await (const row of rows) {
    if (++read % liveEvery === 0) live();
    summary.add(row);
    if ('excluded' in row) await errors.write(row);
  }
  await errors.close();
  const { rows: count, accepted, byReason } = summary.summary();
  return { rows: count, accepted, byReason };
}

async function runBaseline({ path }: ImportRequest, live: () => void) {
  const parser = createReadStream(path).pipe(
    parse({ columns: true, bom: true, skip_records_with_error: true }),
  );
  let rows = 0;
  let accepted = 0;
  for await (const record of parser as AsyncIterable<Record<string, string>>) {
    if (++rows % liveEvery === 0) live();
    const number = parsePhoneNumberFromString(record.phone ?? '', 'FR');
    if (number?.isValid() && number.getType() === 'MOBILE') accepted++;
  }
  return { rows, accepted, byReason: { unreadable_or_not_mobile: rows - accepted } };
}

async function run(request: ImportRequest): Promise<ImportMeasure> {
  const memory = startMemoryPeak();
  const started = performance.now();
  const outcome =
    request.variant === 'replyflow'
      ? await runReplyflow(request, memory.live)
      : await runBaseline(request, memory.live);
  const seconds = (performance.now() - started) / 1000;
  return { ...outcome, seconds, memory: memory.stop() };
}

serveParent({ run: (message) => run(message as unknown as ImportRequest) }, async () => {});
process.send?.({ type: 'ready' });
