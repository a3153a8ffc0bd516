import { requestLocation } from '../admin/request-location.ts';
import { type AppConfig, loadConfig } from '../app/config.ts';
import { campaignReport } from '../campaigns/campaign-report.ts';
import { type CampaignAction, changeCampaignStatus } from '../campaigns/change-campaign-status.ts';
import { listCampaigns } from '../campaigns/list-campaigns.ts';
import { ConfigError, ReplyflowError } from '../errors.ts';
import { createLogger } from '../observability/logger.ts';
import type { Store } from '../store/store.ts';
import { type CreateOptions, createFromFile } from './create-campaign-command.ts';
import { formatCampaignList, formatCampaignReport } from './format-campaign.ts';
import { openDeploymentStore } from './open-deployment-store.ts';

export interface Where {
  location?: string;
}

/** `replyflow campaigns create`, loaded when it runs (campaigns-command.ts defines its options). */
export function createCampaignCommand(name: string, options: CreateOptions): Promise<void> {
  return run('create', (config) => createFromFile(config, name, options));
}

/** `replyflow campaigns list`. */
export function listCampaignsCommand(options: Where & { all?: boolean }): Promise<void> {
  return run('list', async (config) => {
    const location = options.location === undefined ? undefined : locationOf(config, options);
    const entries = await withStore(config, 'replyflow campaigns list reads them', (store) =>
      listCampaigns(store, {
        location,
        locations: config.locations.map((l) => l.name),
        all: options.all,
      }),
    );
    process.stdout.write(`${formatCampaignList(entries)}\n`);
    return 0;
  });
}

/** `replyflow campaigns show`. */
export function showCampaignCommand(name: string, options: Where): Promise<void> {
  return run('show', async (config) => {
    const location = locationOf(config, options);
    const report = await withStore(config, 'replyflow campaigns show reads it', (store) =>
      campaignReport(store, { location, name }),
    );
    process.stdout.write(`${formatCampaignReport(report)}\n`);
    return 0;
  });
}

/** `replyflow campaigns pause | resume | cancel`. */
export function changeCampaignCommand(
  action: CampaignAction,
  name: string,
  options: Where,
): Promise<void> {
  return run(action, (config) => changeStatus(config, name, action, options));
}

async function changeStatus(
  config: AppConfig,
  name: string,
  action: CampaignAction,
  options: Where,
): Promise<number> {
  const location = locationOf(config, options);
  if (name.startsWith('_')) {
    throw new ConfigError(
      `campaign '${name}' holds the admin API's scheduled starts: cancel them one by one (DELETE /admin/conversations/scheduled/:key)`,
    );
  }
  const { meta, cancelled } = await withStore(
    config,
    `replyflow campaigns ${action} writes it`,
    (store) => changeCampaignStatus(store, { location, name }, action, Date.now()),
  );
  const detail =
    action === 'cancel' ? `: ${cancelled.toLocaleString('en-US')} recipients cancelled` : '';
  process.stdout.write(`${meta.name} (${meta.location}) is ${meta.status}${detail}\n`);
  return 0;
}

/** Runs a sub-command: expected failures print one line and exit 1, without a stack. */
async function run(name: string, action: (config: AppConfig) => Promise<number>): Promise<void> {
  try {
    process.exitCode = await action(await loadConfig(process.env));
  } catch (error) {
    if (!(error instanceof ReplyflowError)) throw error;
    process.stderr.write(`replyflow campaigns ${name}: ${error.code}: ${error.message}\n`);
    process.exitCode = 1;
  }
}

/** Opens the deployment's store for `use`, and closes it after. */
async function withStore<T>(
  config: AppConfig,
  doing: string,
  use: (store: Store) => Promise<T>,
): Promise<T> {
  const logger = createLogger({ level: 'warn', destination: process.stderr });
  const { store, close } = openDeploymentStore(config, doing, logger);
  try {
    return await use(store);
  } finally {
    await close();
  }
}

function locationOf(config: AppConfig, options: Where): string {
  const location = requestLocation(config.locations, options.location);
  if (typeof location === 'string') throw new ConfigError(`--location: ${location}`);
  return location.name;
}
