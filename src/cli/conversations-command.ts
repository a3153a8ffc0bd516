import type { Command } from 'commander';
import type { StartOptions } from './conversations-actions.ts';

/**
 * `replyflow conversations start <bot> --phone N --input JSON [--key K] [--at ISO |
 * --relative-to FIELD --offset -24h] [--window 09:00-19:00] [--send-if-within 6h]
 * [--time-zone Z]` and `replyflow conversations cancel <key>`: what `POST /admin/conversations`
 * and `DELETE /admin/conversations/scheduled/:key` do, against the store the environment names
 * (REDIS_URL or REDIS_CLUSTER_NODES), for scripts and cron jobs. Prints the answer as JSON;
 * exits 1 on a refusal.
 */
export function registerConversationsCommand(program: Command): void {
  const conversations = program
    .command('conversations')
    .description(
      'Start conversations, or cancel a keyed start, in the running deployment (needs REDIS_URL or REDIS_CLUSTER_NODES)',
    );
  conversations
    .command('start <bot>')
    .description("Start a bot's conversation with a phone, as POST /admin/conversations does")
    .requiredOption('--phone <phone>', 'the recipient (+33 6 12 34 56 78)')
    .option('--input <json>', "the bot's input, as JSON (checked against the bot's input schema)")
    .option(
      '--key <key>',
      'durable idempotency key: the same start again starts nothing new, a new date reschedules (needed by the options below)',
    )
    .option('--at <time>', 'start then: an ISO instant, or a wall time in --time-zone')
    .option('--relative-to <field>', 'start relative to a date of the input (input.at)')
    .option('--offset <offset>', 'from --relative-to: -24h, +30m (durations), -1d, -2w (calendar)')
    .option('--window <hours>', 'local hours the start may fire in, such as 09:00-19:00')
    .option(
      '--send-if-within <duration>',
      'a time already past starts now when at most this late (6h); default: skipped past_due',
    )
    .option(
      '--time-zone <zone>',
      "IANA zone of wall times and the window (default: the location's quiet hours' zone, else UTC)",
    )
    .option('--location <name>', 'the configured location (default: the only one)')
    .action(async (bot: string, options: StartOptions) =>
      (await import('./conversations-actions.ts')).startConversation(bot, options),
    );
  conversations
    .command('cancel <key>')
    .description(
      'Cancel a start given with --key that has not fired, as DELETE /admin/conversations/scheduled/:key does',
    )
    .option('--location <name>', 'the configured location (default: the only one)')
    .action(async (key: string, options: { location?: string }) =>
      (await import('./conversations-actions.ts')).cancelConversation(key, options),
    );
}
