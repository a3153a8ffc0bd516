import type { CountryCode } from 'libphonenumber-js/max';
import { z } from 'zod';
import { requestLocation } from '../admin/request-location.ts';
import type { LocationConfig } from '../app/config.ts';
import type { BotRegistry } from '../bot/bot-registry.ts';
import { parseDuration } from '../bot/parse-duration.ts';
import { errorCodes, ValidationError } from '../errors.ts';
import type { Store } from '../store/store.ts';
import type { ErrorsFile } from './errors-file.ts';
import {
  type CampaignDefinition,
  type ImportOutcome,
  importCampaign,
  refuseReimport,
} from './import-campaign.ts';
import { createImportSummary, type ImportSummary } from './import-summary.ts';
import { type ExcludedRow, type Recipient, readRecipients } from './read-recipients.ts';
import type { RecipientFileFormat } from './recipient-file-format.ts';
import type { SendTimeSpec } from './send-time.ts';

/** What `replyflow campaigns create` and `POST /admin/campaigns` take besides the file. */
export const createCampaignRequestSchema = z
  .object({
    location: z.string().min(1).optional(),
    name: z
      .string({ error: "is required: the campaign's name, such as spring-survey" })
      .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, {
        error: 'must be 1 to 64 letters, digits, - or _, starting with a letter or digit',
      }),
    bot: z
      .string({ error: 'is required: the id of the bot each recipient talks to' })
      .min(1, { error: 'is required: the id of the bot each recipient talks to' }),
    at: z.string().min(1).optional(),
    relativeTo: z.string().min(1).optional(),
    offset: z.string().min(1).optional(),
    /** `20/s`, `20`, `1200/m`. */
    rate: z.union([z.number().positive(), z.string().min(1)]).optional(),
    window: z.string().min(1).optional(),
    timeZone: z.string().min(1).optional(),
    timeZoneColumn: z.string().min(1).optional(),
    phoneColumn: z.string().min(1).optional(),
    /** `skip` (default) or the lateness still sent (`6h`). */
    sendIfWithin: z.string().min(1).optional(),
    format: z.enum(['csv', 'jsonl']).optional(),
    fileName: z.string().optional(),
    dryRun: z.boolean().optional(),
  })
  .refine((r) => !(r.at && r.relativeTo), {
    error: 'give at or relativeTo, not both',
    path: ['relativeTo'],
  })
  .refine((r) => r.offset === undefined || r.relativeTo !== undefined, {
    error: 'offset goes with relativeTo (the column the offset counts from)',
    path: ['offset'],
  });
export type CreateCampaignRequest = z.infer<typeof createCampaignRequestSchema>;

export interface CreateCampaignDeps {
  store: Store;
  registry: BotRegistry;
  locations: readonly LocationConfig[];
  now(): number;
}

/** What a create (or its dry run) did. */
export interface CreateCampaignResult {
  dryRun: boolean;
  summary: ImportSummary;
  /** The import's store outcome; absent for a dry run. */
  imported?: Omit<ImportOutcome, 'excluded'>;
}

/**
 * Creates a campaign from a recipient file, or imports its file again under the same name
 * (`importCampaign`): checks the location, the bot, the schedule and the rate first (a mistake
 * there is one clear error, not one per row), then streams the file through `readRecipients`.
 * A dry run stores nothing: it reads the whole file, asks the store which phones opted out,
 * and answers the totals, the exclusions by reason and the first rows with their send times.
 * Excluded rows go to `errors` (the errors file) as they come.
 */
export async function createCampaign(
  deps: CreateCampaignDeps,
  request: CreateCampaignRequest,
  source: AsyncIterable<Uint8Array | string>,
  options: { expectedRows?: number; errors?: ErrorsFile; onRow?: () => void } = {},
): Promise<CreateCampaignResult> {
  const location = requestLocation(deps.locations, request.location);
  if (typeof location === 'string') throw invalid(location, 'location');
  const bot = deps.registry.bots.get(request.bot);
  if (!bot) {
    const loaded = [...deps.registry.bots.keys()].join(', ') || '(none)';
    throw invalid(`no bot '${request.bot}'; loaded: ${loaded}`, 'bot');
  }
  const now = deps.now();
  const timeZone = request.timeZone ?? location.compliance?.quietHours?.timeZone ?? 'UTC';
  const past = pastPolicy(request.sendIfWithin);
  // Checked here, before the file and before a dry run returns: a dry run that passes must
  // mean the real create does too.
  const ratePerSecond = rateOf(request.rate, location.rateLimitPerSecond);
  const send: SendTimeSpec = {
    timeZone,
    window: request.window,
    past,
    ...(request.relativeTo !== undefined
      ? { relativeTo: request.relativeTo, offset: request.offset ?? '0m' }
      : { at: request.at }),
  };
  // Priming reads the header and checks the schedule (readRecipients does both on its first
  // read): a bad window or a file without its phone column is refused before importCampaign
  // saves the campaign, so a refused create leaves nothing behind.
  const rows = await primed(
    readRecipients(source, {
      format: request.format as RecipientFileFormat | undefined,
      fileName: request.fileName,
      phoneColumn: request.phoneColumn,
      timeZoneColumn: request.timeZoneColumn,
      defaultCountry: location.defaultCountry as CountryCode | undefined,
      input: bot.input,
      send,
      now,
      expectedRows: options.expectedRows,
    }),
  );
  const summary = createImportSummary();
  const tally = async function* (): AsyncGenerator<Recipient | ExcludedRow> {
    for await (const row of rows) {
      if ('excluded' in row) await options.errors?.write(row);
      options.onRow?.();
      yield row;
    }
  };
  if (request.dryRun) {
    // A dry run says what the import would refuse, too.
    refuseReimport(
      await deps.store.getCampaign({ location: location.name, name: request.name }),
      request.name,
      bot.id,
    );
    for await (const batch of batches(tally(), 200)) {
      const suppressed = await Promise.all(
        batch.map((row) =>
          'excluded' in row
            ? false
            : deps.store.isSuppressed({ location: location.name, phone: row.phone }),
        ),
      );
      batch.forEach((row, i) => {
        if (suppressed[i] && !('excluded' in row)) {
          summary.add({ line: row.line, excluded: 'opted_out', message: 'the phone opted out' });
        } else summary.add(row);
      });
    }
    return { dryRun: true, summary: summary.summary() };
  }
  const definition: CampaignDefinition = {
    location: location.name,
    name: request.name,
    bot: bot.id,
    schedule:
      request.relativeTo !== undefined
        ? { relativeTo: request.relativeTo, offset: request.offset ?? '0m' }
        : { at: request.at ?? new Date(now).toISOString() },
    ratePerSecond,
    ...(request.window !== undefined && { window: request.window }),
    timeZone,
    ...(request.timeZoneColumn !== undefined && { timeZoneColumn: request.timeZoneColumn }),
    late: past,
  };
  const imported = await importCampaign(
    deps.store,
    definition,
    (async function* () {
      for await (const row of tally()) {
        summary.add(row);
        yield row;
      }
    })(),
    { now, expectedRows: options.expectedRows },
  );
  const { excluded: _, ...outcome } = imported;
  const result = summary.summary();
  // The store knows which of the accepted rows opted out: they are skipped, not sent.
  result.byReason.opted_out = outcome.optedOut;
  result.accepted -= outcome.optedOut;
  result.excluded += outcome.optedOut;
  return { dryRun: false, summary: result, imported: outcome };
}

/** `skip` (no lateness) or `sendIfWithin` a duration. */
function pastPolicy(sendIfWithin: string | undefined): SendTimeSpec['past'] {
  if (sendIfWithin === undefined || sendIfWithin === 'skip') return { kind: 'skip' };
  const ms = parseDuration(sendIfWithin);
  if (ms === undefined || ms <= 0) {
    throw invalid(
      `sendIfWithin '${sendIfWithin}' must be a duration such as 6h or 30m`,
      'sendIfWithin',
    );
  }
  return { kind: 'sendIfWithin', ms };
}

/** A rate as `20/s`, `1200/m`, `20`: per second; at most the location's own rate limit. */
export function rateOf(rate: number | string | undefined, locationRate: number): number {
  if (rate === undefined) return locationRate;
  const match =
    typeof rate === 'number' ? null : /^(\d+(?:\.\d+)?)\s*(?:\/\s*(s|m|h))?$/.exec(rate.trim());
  const perSecond =
    typeof rate === 'number'
      ? rate
      : match
        ? Number(match[1]) / ({ s: 1, m: 60, h: 3600 }[match[2] as 's' | 'm' | 'h'] ?? 1)
        : Number.NaN;
  if (!(perSecond > 0)) {
    throw invalid(
      `rate '${rate}' must be a number of starts per second, such as 20/s or 600/m`,
      'rate',
    );
  }
  return Math.min(perSecond, locationRate);
}

function invalid(message: string, field: string): ValidationError {
  return new ValidationError(errorCodes.INPUT_INVALID, message, field);
}

async function* batches<T>(rows: AsyncIterable<T>, size: number): AsyncGenerator<T[]> {
  let batch: T[] = [];
  for await (const row of rows) {
    batch.push(row);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** The rows, with the first one already read: whatever reading it throws is thrown here. */
async function primed<T>(rows: AsyncGenerator<T>): Promise<AsyncGenerator<T>> {
  const first = await rows.next();
  return (async function* () {
    if (first.done) return;
    yield first.value;
    yield* rows;
  })();
}
