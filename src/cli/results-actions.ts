import { loadConfig } from '../app/config.ts';
import { ConfigError, ReplyflowError } from '../errors.ts';
import { createLogger } from '../observability/logger.ts';
import { type ResultFormat, writeResults } from '../results/write-results.ts';
import { openDeploymentStore } from './open-deployment-store.ts';

/** `replyflow results`, loaded when it runs (results-command.ts defines its options). */
export async function runResults(bot: string, options: ResultsOptions): Promise<void> {
  try {
    await printResults(bot, options);
  } catch (error) {
    if (!(error instanceof ReplyflowError)) throw error;
    process.stderr.write(`replyflow results: ${error.code}: ${error.message}\n`);
    process.exit(1);
  }
}

export interface ResultsOptions {
  format: string;
  since?: string;
  location?: string;
  campaign?: string;
}

async function printResults(bot: string, options: ResultsOptions): Promise<void> {
  if (options.format !== 'csv' && options.format !== 'json') {
    throw new ConfigError(`--format must be csv or json, not '${options.format}'`);
  }
  const since = options.since === undefined ? undefined : Date.parse(options.since);
  if (since !== undefined && Number.isNaN(since)) {
    throw new ConfigError(
      `--since must be an ISO 8601 date such as 2026-12-01T00:00:00Z, not '${options.since}'`,
    );
  }
  const config = await loadConfig(process.env);
  const logger = createLogger({ level: 'warn', destination: process.stderr });
  const { store, close } = openDeploymentStore(
    config,
    'replyflow results reads the results kept',
    logger,
  );
  try {
    const count = await writeResults(store, bot, process.stdout, {
      format: options.format as ResultFormat,
      ...(since !== undefined && { since }),
      ...(options.location !== undefined && { location: options.location }),
      ...(options.campaign !== undefined && { campaign: options.campaign }),
    });
    const campaign = options.campaign;
    if (count === 0 && campaign !== undefined) {
      // Nothing for a name no location knows: most likely a typo, which an empty list hides.
      const locations = config.locations
        .map((location) => location.name)
        .filter((name) => options.location === undefined || name === options.location);
      const found = await Promise.all(
        locations.map((location) => store.getCampaign({ location, name: campaign })),
      );
      if (found.every((meta) => meta === null)) {
        const where = locations.length === 1 ? `location '${locations[0]}'` : 'any location';
        throw new ConfigError(
          `no campaign '${campaign}' in ${where}, and no results for it: see replyflow campaigns list`,
        );
      }
    }
  } finally {
    await close();
  }
}
