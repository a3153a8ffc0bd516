import type { Command } from 'commander';
import type { CampaignAction } from '../campaigns/change-campaign-status.ts';
import type { Where } from './campaigns-actions.ts';
import type { CreateOptions } from './create-campaign-command.ts';

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
    .action(async (name: string, options: CreateOptions) =>
      (await import('./campaigns-actions.ts')).createCampaignCommand(name, options),
    );
  campaigns
    .command('list')
    .description('The campaigns, with their recipients per state')
    .option(...locationOption)
    .option('--all', "also the reserved ones (_api: the admin API's scheduled starts)")
    .action(async (options: Where & { all?: boolean }) =>
      (await import('./campaigns-actions.ts')).listCampaignsCommand(options),
    );
  campaigns
    .command('show <name>')
    .description(
      "A campaign's definition, its recipients per state and reason, and the funnel of its conversations",
    )
    .option(...locationOption)
    .action(async (name: string, options: Where) =>
      (await import('./campaigns-actions.ts')).showCampaignCommand(name, options),
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
      .action(async (name: string, options: Where) =>
        (await import('./campaigns-actions.ts')).changeCampaignCommand(action, name, options),
      );
  }
}
