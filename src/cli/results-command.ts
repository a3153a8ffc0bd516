import type { Command } from 'commander';
import { loadConfig } from '../app/config.ts';
import { ConfigError, ReplyflowError } from '../errors.ts';
import { createLogger } from '../observability/logger.ts';
import { type ResultFormat, writeResults } from '../results/write-results.ts';
import { openDeploymentStore } from './open-deployment-store.ts';

/** `replyflow results <bot>`: a bot's conversation results from the deployment's store (REDIS_URL or REDIS_CLUSTER_NODES). */
export function registerResultsCommand(program: Command): void {
  program
    .command('results')
    .description(
      "Print a bot's conversation results (what its flows recorded), from the deployment's store (REDIS_URL or REDIS_CLUSTER_NODES)",
    )
    .argument('<bot>', 'the bot id')
    .option('--format <format>', 'csv or json', 'csv')
    .option('--since <iso>', 'only conversations started at or after this time (ISO 8601)')
    .option('--location <name>', 'only this location')
    .option(
      '--campaign <name>',
      "only the conversations this campaign started (the columns campaign and row name each one's recipient)",
    )
    .action(async (bot: string, options: ResultsOptions) => {
      try {
        await printResults(bot, options);
      } catch (error) {
        if (!(error instanceof ReplyflowError)) throw error;
        process.stderr.write(`replyflow results: ${error.code}: ${error.message}\n`);
        process.exit(1);
      }
    });
}

interface ResultsOptions {
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
    await writeResults(store, bot, process.stdout, {
      format: options.format as ResultFormat,
      ...(since !== undefined && { since }),
      ...(options.location !== undefined && { location: options.location }),
      ...(options.campaign !== undefined && { campaign: options.campaign }),
    });
  } finally {
    await close();
  }
}
