import type { CountryCode } from 'libphonenumber-js/max';
import type { ZodType } from 'zod';
import { ValidationError } from '../errors.ts';
import { maskPhone } from '../observability/mask-phone.ts';
import { normalizePhone } from '../provider/normalize-phone.ts';
import { jsonInputProblem } from '../store/json-input-problem.ts';
import { canonicalTimeZone } from './canonical-time-zone.ts';
import { readCsvRows } from './read-csv-rows.ts';
import { readJsonlRows } from './read-jsonl-rows.ts';
import { readLines } from './read-lines.ts';
import { type RecipientFileFormat, recipientFileFormat } from './recipient-file-format.ts';
import { SeenPhones } from './seen-phones.ts';
import { checkSendTimeSpec, type SendTimeSpec, sendTimeOf } from './send-time.ts';
import { setOwn } from './set-own.ts';
import type { SourceRow } from './source-row.ts';

/** Why a row of the file gives no recipient. */
export type RecipientExclusion = 'bad_phone' | 'bad_input' | 'bad_date' | 'past_due' | 'duplicate';

/** A recipient read from a row: its number in the service's form, the bot's input, when to send. */
export interface Recipient {
  readonly line: number;
  readonly phone: string;
  /** The row's other columns, as the bot's `input` schema parsed them when it has one. */
  readonly input: unknown;
  /** When to start its conversation, ms. */
  readonly at: number;
  /** Its own time zone when the row gave one, else the campaign's. */
  readonly timeZone: string;
}

/** A row that gives no recipient, and why; a phone number in `message` is masked. */
export interface ExcludedRow {
  readonly line: number;
  readonly excluded: RecipientExclusion;
  readonly message: string;
  /** The row's number in the service's form, when it had a valid one (not for `bad_phone`). */
  readonly phone?: string;
}

export interface ReadRecipientsOptions {
  /** `csv` or `jsonl` (one JSON object a line); by default from `fileName`'s extension. */
  format?: RecipientFileFormat;
  /** The file's name: `.jsonl` and `.ndjson` are JSON lines, `.csv`, `.txt` or none CSV. */
  fileName?: string;
  /** The column holding the phone number (default `phone`). */
  phoneColumn?: string;
  /** The column holding a recipient's own IANA time zone, if any; empty: the campaign's. */
  timeZoneColumn?: string;
  /** Country of numbers written in national form (`06 12 34 56 78` with `FR`). */
  defaultCountry?: CountryCode;
  /** The bot's `input` zod schema: every row's input must match it, and its output is kept. */
  input?: ZodType;
  /** When to send; its `timeZone` is the campaign's, for rows without their own. */
  send: SendTimeSpec;
  now: number;
  /** A longer line is refused as a row (default 1 Mi characters). */
  maxLineLength?: number;
  /** About how many rows the file has (its size ÷ 50 will do): memory is set aside at once. */
  expectedRows?: number;
}

/**
 * Streams the recipients of a campaign file, one result per data row and in file order: a
 * `Recipient`, or an `ExcludedRow` with its reason (`bad_phone`, `bad_input`, `bad_date`,
 * `past_due`, or `duplicate` for a number an earlier row already named), so that every row is
 * accounted for. Memory stays flat whatever the file's size: rows are read a chunk at a time,
 * and the numbers seen cost 16 bytes each (up to 32 when the file is longer than `expectedRows`). A mistake that would spoil every row (no phone
 * column, a bad offset) throws a `ValidationError` or `ConfigError` before the first row.
 *
 * @example
 * const send = { relativeTo: 'appointment', offset: '-1d', timeZone: 'Europe/Paris', window: '09:00-19:00', past: { kind: 'skip' } } as const;
 * for await (const row of readRecipients(createReadStream(path), { fileName: path, defaultCountry: 'FR', input: bot.input, send, now: Date.now() })) {
 *   if ('excluded' in row) console.log(row.line, row.excluded, row.message);
 * }
 */
export async function* readRecipients(
  source: AsyncIterable<Uint8Array | string>,
  options: ReadRecipientsOptions,
): AsyncGenerator<Recipient | ExcludedRow> {
  checkSendTimeSpec(options.send);
  const phoneColumn = options.phoneColumn ?? 'phone';
  const zoneColumn = options.timeZoneColumn;
  const lines = readLines(source, options.maxLineLength);
  const required = [phoneColumn, zoneColumn, options.send.relativeTo];
  const rows =
    recipientFileFormat(options) === 'csv'
      ? readCsvRows(lines, { requiredColumns: required.filter((name) => name !== undefined) })
      : readJsonlRows(lines);
  const seen = new SeenPhones(options.expectedRows);
  for await (const batch of rows) {
    for (const row of batch) yield recipientOf(row, options, phoneColumn, seen);
  }
}

function recipientOf(
  row: SourceRow,
  options: ReadRecipientsOptions,
  phoneColumn: string,
  seen: SeenPhones,
): Recipient | ExcludedRow {
  const { line } = row;
  let phone: string | undefined;
  const exclude = (excluded: RecipientExclusion, message: string): ExcludedRow =>
    phone === undefined ? { line, excluded, message } : { line, excluded, message, phone };
  if ('problem' in row) return exclude('bad_input', row.problem);
  const { values } = row;
  const raw = values[phoneColumn];
  if (isBlank(raw)) return exclude('bad_phone', `no phone number in column '${phoneColumn}'`);
  try {
    // Not remembered: a file names each number once, and each entry of normalizePhone's
    // 10,000-number memory outlived as many rows, promoted to the old generation for nothing.
    phone = normalizePhone(String(raw), {
      defaultCountry: options.defaultCountry,
      remember: false,
    });
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const text = String(raw);
    // Its message quotes the number as written: masked, unless too short to be anyone's.
    const shown = text.replace(/\D/g, '').length > 6 ? maskPhone(text) : text;
    return exclude('bad_phone', error.message.replaceAll(`'${text}'`, `'${shown}'`));
  }
  const firstLine = seen.firstLine(phone, line);
  if (firstLine !== undefined) {
    return exclude('duplicate', `${maskPhone(phone)} is already on line ${firstLine}`);
  }
  const zoneColumn = options.timeZoneColumn;
  let timeZone = options.send.timeZone;
  const zone = zoneColumn === undefined ? undefined : values[zoneColumn];
  if (!isBlank(zone)) {
    const known = typeof zone === 'string' ? canonicalTimeZone(zone.trim()) : undefined;
    if (known === undefined) {
      return exclude(
        'bad_input',
        `${JSON.stringify(zone)} in column '${zoneColumn}' is not a time zone: use an IANA name such as Europe/Paris or America/New_York`,
      );
    }
    timeZone = known;
  }
  const columns: Record<string, unknown> = {};
  for (const key of Object.keys(values)) {
    if (key !== phoneColumn && key !== zoneColumn) setOwn(columns, key, values[key]);
  }
  let input: unknown = columns;
  const unstorable = jsonInputProblem(input, 'input');
  if (unstorable !== undefined) return exclude('bad_input', unstorable);
  if (options.input) {
    const parsed = options.input.safeParse(input);
    if (!parsed.success) {
      const issues = parsed.error.issues.slice(0, 3).map((issue) => {
        const field = ['input', ...issue.path.map(String)].join('.');
        return `${field}: ${issue.message}`;
      });
      return exclude('bad_input', issues.join('; '));
    }
    input = parsed.data;
  }
  const send = sendTimeOf(
    timeZone === options.send.timeZone ? options.send : { ...options.send, timeZone },
    values,
    options.now,
  );
  if ('skip' in send) return exclude(send.skip, send.message);
  return { line, phone, input, at: send.at, timeZone };
}

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}
