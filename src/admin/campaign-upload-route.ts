import type { Request, RequestHandler, Response } from 'express';
import type { LocationConfig } from '../app/config.ts';
import { allowLongBody } from '../app/create-hardened-server.ts';
import type { BotRegistry } from '../bot/bot-registry.ts';
import {
  type CreateCampaignRequest,
  createCampaign,
  createCampaignRequestSchema,
} from '../campaigns/create-campaign.ts';
import type { ErrorsFile } from '../campaigns/errors-file.ts';
import { importReport } from '../campaigns/import-report.ts';
import type { ExcludedImportRow } from '../campaigns/import-summary.ts';
import type { Logger } from '../observability/logger.ts';
import type { Store } from '../store/store.ts';
import { answerCampaignError } from './answer-campaign-error.ts';

export interface CampaignUploadOptions {
  store: Store;
  registry: BotRegistry;
  locations: readonly LocationConfig[];
  now(): number;
  logger: Logger;
}

/** The excluded rows an answer lists (`errorCount` says how many there were in all). */
const errorsShown = 100;

/** The query parameters `POST /admin/campaigns` takes: the CLI's options, by their names. */
const queryFields = [
  'location',
  'name',
  'bot',
  'at',
  'relativeTo',
  'offset',
  'rate',
  'window',
  'timeZone',
  'timeZoneColumn',
  'phoneColumn',
  'sendIfWithin',
  'dryRun',
] as const;

/**
 * `POST /admin/campaigns?name=…&bot=…[&at=…|&relativeTo=…&offset=…][&rate=…][&window=…]
 * [&timeZone=…][&timeZoneColumn=…][&dryRun=true]` with the recipient file as the body
 * (`text/csv`, or `application/x-ndjson` for JSON lines), piped into `createCampaign` as it
 * arrives: never held whole. Answers 201 (created), 200 (imported again under its name, or a
 * dry run), with the import report, the first 100 excluded rows (`errors`) and `errorCount`;
 * 400 naming the field, 404, 409, 415, 503.
 */
export function campaignUploadRoute(options: CampaignUploadOptions): RequestHandler {
  return async (req, res) => {
    const request = requestOf(req, res);
    if (!request) return;
    // Read at the store's pace (about 15,000 rows a second): a large file outlasts the
    // server's 8 s request timeout, which a cut would leave half imported.
    allowLongBody(req);
    const errors = collectErrors();
    let rowsRead = 0;
    try {
      const result = await createCampaign(
        {
          store: options.store,
          registry: options.registry,
          locations: options.locations,
          now: options.now,
        },
        request,
        req,
        { errors, expectedRows: expectedRows(req), onRow: () => rowsRead++ },
      );
      const report = importReport(result);
      const created = result.imported?.meta.generation === 1;
      if (result.imported) {
        options.logger.info(
          {
            location: result.imported.meta.location,
            campaign: request.name,
            bot: request.bot,
            rows: report.rows,
            ...report.imported,
          },
          created ? 'admin campaigns: created' : 'admin campaigns: imported again',
        );
      }
      res
        .status(created ? 201 : 200)
        .json({ ...report, errors: errors.shown, errorCount: errors.rows });
    } catch (error) {
      if (req.destroyed && (error as NodeJS.ErrnoException).code === 'ECONNRESET') {
        // Nobody is left to answer: what was read is stored, and the same file again finishes it.
        options.logger.warn(
          { campaign: request.name, rowsRead },
          'admin campaigns: the upload was cut short by the client; the rows read so far are imported: send the same file again',
        );
        return;
      }
      answerCampaignError(res, error, options.logger, 'import');
    }
  };
}

/** The request's options and the file's format, or undefined once a 400 or 415 is answered. */
function requestOf(req: Request, res: Response): CreateCampaignRequest | undefined {
  const format = req.is(['text/csv', 'application/x-ndjson', 'application/jsonl']);
  if (!format) {
    res.status(415).json({
      error:
        'send the recipients as the body: content-type: text/csv, or application/x-ndjson for JSON lines',
    });
    return undefined;
  }
  const query = req.query as Record<string, unknown>;
  const unknown = Object.keys(query).find(
    (key) => !(queryFields as readonly string[]).includes(key),
  );
  if (unknown !== undefined) {
    res.status(400).json({
      error: `${unknown}: not an option of a campaign; the options are ${queryFields.join(', ')}`,
      field: unknown,
    });
    return undefined;
  }
  const { dryRun, ...rest } = query;
  if (dryRun !== undefined && dryRun !== 'true' && dryRun !== 'false') {
    res.status(400).json({ error: 'dryRun: must be true or false', field: 'dryRun' });
    return undefined;
  }
  const parsed = createCampaignRequestSchema.safeParse({
    ...rest,
    format: format === 'text/csv' ? 'csv' : 'jsonl',
    dryRun: dryRun === 'true',
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.map(String).join('.') ?? '';
    res
      .status(400)
      .json({ error: `${field || 'query'}: ${issue?.message ?? 'is invalid'}`, field });
    return undefined;
  }
  return parsed.data;
}

/** About how many rows the body has (50 bytes a row), when its length is told. */
function expectedRows(req: Request): number | undefined {
  const length = Number(req.get('content-length'));
  return Number.isFinite(length) && length > 0 ? Math.ceil(length / 50) : undefined;
}

/** The errors "file" of an API import: the first rows for the answer, and the count. */
function collectErrors(): ErrorsFile & {
  shown: Array<{ line: number; reason: string; message: string }>;
} {
  const shown: Array<{ line: number; reason: string; message: string }> = [];
  let rows = 0;
  return {
    shown,
    async write(row: ExcludedImportRow) {
      rows++;
      if (shown.length < errorsShown) {
        shown.push({ line: row.line, reason: row.excluded, message: row.message });
      }
    },
    async close() {},
    get rows() {
      return rows;
    },
  };
}
