import { createReadStream } from 'node:fs';
import { stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { AppConfig } from '../app/config.ts';
import { loadBots } from '../bot/load-bots.ts';
import {
  type CreateCampaignRequest,
  createCampaign,
  createCampaignRequestSchema,
} from '../campaigns/create-campaign.ts';
import { type ErrorsFile, openErrorsFile } from '../campaigns/errors-file.ts';
import { importReport } from '../campaigns/import-report.ts';
import { ConfigError } from '../errors.ts';
import { createLogger } from '../observability/logger.ts';
import { formatImportReport } from './format-campaign.ts';
import { openDeploymentStore } from './open-deployment-store.ts';
import { createProgressReporter } from './progress-reporter.ts';

/** `replyflow campaigns create`'s options, as commander gives them. */
export interface CreateOptions {
  bot: string;
  file: string;
  at?: string;
  relativeTo?: string;
  offset?: string;
  rate?: string;
  window?: string;
  timeZone?: string;
  timeZoneColumn?: string;
  phoneColumn?: string;
  sendIfWithin?: string;
  format?: string;
  errors?: string;
  dryRun?: boolean;
  location?: string;
}

/**
 * `replyflow campaigns create NAME --bot B --file F …`: streams the file into `createCampaign`
 * with a progress line on stderr, writes the excluded rows to the errors file (removed when
 * there are none) and prints the report. Exits 0 once the campaign is created, bad rows or not
 * (they are in the errors file); a refusal throws.
 */
export async function createFromFile(
  config: AppConfig,
  name: string,
  options: CreateOptions,
): Promise<number> {
  const request = requestOf(name, options);
  // 16 KiB reads, not 64: the rows of a chunk take long enough to import that a 64 KiB chunk
  // outlived two young collections and was promoted, its buffer freed only by a full one
  // (about 25 MiB held at a million rows, bench/campaigns).
  const input = createReadStream(options.file, { highWaterMark: 16 * 1024 });
  // A missing file is said before anything else is opened.
  await new Promise<void>((resolve, reject) => {
    input.once('open', () => resolve());
    input.once('error', (cause) =>
      reject(
        new ConfigError(`cannot read ${options.file}: ${(cause as Error).message}`, { cause }),
      ),
    );
  });
  const { size } = await stat(options.file);
  const registry = await loadBots(config.botsDir);
  const errorsPath = options.errors ?? join(dirname(options.file), `${name}-errors.csv`);
  let errors: ErrorsFile;
  try {
    errors = await openErrorsFile(errorsPath);
  } catch (cause) {
    input.destroy();
    throw new ConfigError(
      `cannot write the errors file ${errorsPath}: ${(cause as Error).message}`,
      {
        cause,
      },
    );
  }
  const progress = createProgressReporter({
    output: process.stderr,
    totalBytes: size,
    label: request.dryRun ? 'checked' : 'imported',
  });
  let rows = 0;
  const logger = createLogger({ level: 'warn', destination: process.stderr });
  const doing = request.dryRun ? 'checks the opt-outs' : 'writes the campaign';
  try {
    const { store, close } = openDeploymentStore(
      config,
      `replyflow campaigns create ${doing}`,
      logger,
    );
    try {
      const result = await createCampaign(
        { store, registry, locations: config.locations, now: Date.now },
        request,
        input,
        {
          errors,
          expectedRows: Math.ceil(size / 50),
          onRow: () => progress.update(++rows, input.bytesRead),
        },
      );
      progress.finish();
      process.stdout.write(`${formatImportReport(importReport(result))}\n`);
    } finally {
      await close();
    }
  } finally {
    input.destroy();
    await errors.close();
    // An empty errors file would pass for this import's (or hide that there was none).
    if (errors.rows === 0) await unlink(errorsPath).catch(() => undefined);
  }
  if (errors.rows === 0) process.stdout.write('No bad rows.\n');
  else {
    process.stdout.write(
      `${errors.rows.toLocaleString('en-US')} bad rows, each with its line and reason, are in ${errorsPath}\n`,
    );
  }
  return 0;
}

/** The request the options make, or a ConfigError naming the option. */
function requestOf(name: string, options: CreateOptions): CreateCampaignRequest {
  const parsed = createCampaignRequestSchema.safeParse({
    name,
    bot: options.bot,
    location: options.location,
    at: options.at,
    relativeTo: options.relativeTo,
    offset: options.offset,
    rate: options.rate,
    window: options.window,
    timeZone: options.timeZone,
    timeZoneColumn: options.timeZoneColumn,
    phoneColumn: options.phoneColumn,
    sendIfWithin: options.sendIfWithin,
    format: options.format,
    fileName: basename(options.file),
    dryRun: options.dryRun === true,
  });
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = String(issue?.path[0] ?? '');
  const flag =
    field === 'name' ? 'NAME' : `--${field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  throw new ConfigError(`${field ? `${flag}: ` : ''}${issue?.message ?? 'is invalid'}`);
}
