import type { Command } from 'commander';

/**
 * `replyflow webhooks deliveries [--failed] [--limit N] [--json]` and `replyflow webhooks replay
 * ID`: the outbound events (docs/integrations.md) waiting in the deployment's store (REDIS_URL or
 * REDIS_CLUSTER_NODES), or those given up (dead letters), and one of those queued again with its
 * id, so the receiver dedupes it as before. Phone numbers are masked.
 */
export function registerEventDeliveryCommands(webhooks: Command): void {
  webhooks
    .command('deliveries')
    .description(
      'List the outbound events waiting to be delivered, or with --failed those given up (needs REDIS_URL or REDIS_CLUSTER_NODES)',
    )
    .option('--failed', 'the dead letters: events given up, newest first')
    .option('--limit <n>', 'at most this many', '50')
    .option('--json', 'one JSON object per line')
    .action(async (options: { failed?: boolean; limit: string; json?: boolean }) =>
      (await import('./event-deliveries-actions.ts')).listDeliveries(options),
    );
  webhooks
    .command('replay')
    .description('Queue a dead letter again, with its id (receivers dedupe by it)')
    .argument('<id>', "the event's id (evt_…)")
    .action(async (id: string) =>
      (await import('./event-deliveries-actions.ts')).replayDelivery(id),
    );
}
