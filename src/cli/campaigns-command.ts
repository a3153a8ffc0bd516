import type { Command } from 'commander';
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

interface Where {
  location?: string;
}

const locationOption = [
  '--location <name>',
  'the configured location (default: the only one)',
] as const;

/**
 * `replyflow campaigns create | list | show | pause | resume | cancel`: a location's campaigns
 * in the deployment's store (REDIS_URL or REDIS_CLUSTER_NODES), as `/admin/campaigns` does.
 * A refusal prints one line (`replyflow campaigns <command>: <CODE>: <message>`) and exits 1.
 */
export function registerCampaignsCommand(program: Command): void {
  const campaigns = program
    .command('campaigns')
    .description(
      'Start conversations for a list of recipients, now, at a time or relative to a date of each row (needs REDIS_URL or REDIS_CLUSTER_NODES)',
    );
  campaigns
    .command('create <name>')
    .description(
      'Create a campaign from a CSV or JSON lines file, or import its file again (a changed date is rescheduled, a new row added, a row gone cancelled)',
    )
    .requiredOption(
      '--bot <bot>',
      'the bot each recipient talks to (its input schema checks each row)',
    )
    .requiredOption('--file <path>', 'the recipients: CSV with a phone column, or .jsonl')
    .option(
      '--at <time>',
      'when to send: an ISO 8601 time, or a wall time in --time-zone (default: now)',
    )
    .option('--relative-to <column>', 'send relative to the date in this column of each row')
    .option(
      '--offset <offset>',
      'with --relative-to: -24h (exactly 24 hours before), -1d (the same time the day before), +30m (default 0m)',
    )
    .option(
      '--rate <rate>',
      "starts per second at most: 20/s, 600/m (default: the location's rate limit)",
    )
    .option(
      '--window <hours>',
      "local hours sends may start in, on each recipient's clock: 09:00-19:00",
    )
    .option(
      '--time-zone <zone>',
      "the time zone of recipients without one (default: the quiet hours' zone, else UTC)",
    )
    .option('--time-zone-column <column>', "the column holding a recipient's own time zone")
    .option('--phone-column <column>', 'the column holding the phone number', 'phone')
    .option(
      '--send-if-within <duration>',
      'a send time already past is sent when at most this late (6h); default: skipped as past due',
    )
    .option('--format <format>', 'csv or jsonl (default: from the file name)')
    .option(
      '--errors <path>',
      'where the excluded rows go (default: <name>-errors.csv next to the file)',
    )
    .option('--dry-run', 'read the whole file and print what would be done; store nothing')
    .option(...locationOption)
    .action((name: string, options: CreateOptions) =>
      run('create', (config) => createFromFile(config, name, options)),
    );
  campaigns
    .command('list')
    .description('The campaigns, with their recipients per state')
    .option(...locationOption)
    .option('--all', "also the reserved ones (_api: the admin API's scheduled starts)")
    .action((options: Where & { all?: boolean }) =>
      run('list', async (config) => {
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
      }),
    );
  campaigns
    .command('show <name>')
    .description(
      "A campaign's definition, its recipients per state and reason, and the funnel of its conversations",
    )
    .option(...locationOption)
    .action((name: string, options: Where) =>
      run('show', async (config) => {
        const location = locationOf(config, options);
        const report = await withStore(config, 'replyflow campaigns show reads it', (store) =>
          campaignReport(store, { location, name }),
        );
        process.stdout.write(`${formatCampaignReport(report)}\n`);
        return 0;
      }),
    );
  const actions: Record<CampaignAction, string> = {
    pause: 'Stop starting its recipients, within seconds, until it is resumed',
    resume:
      'Start its recipients again (those whose time came meanwhile go at once, at its rate, unless more than 15 minutes late)',
    cancel: 'Start nothing more of it, ever: every recipient still waiting is cancelled',
  };
  for (const [action, description] of Object.entries(actions) as [CampaignAction, string][]) {
    campaigns
      .command(`${action} <name>`)
      .description(description)
      .option(...locationOption)
      .action((name: string, options: Where) =>
        run(action, (config) => changeStatus(config, name, action, options)),
      );
  }
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
