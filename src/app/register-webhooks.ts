import type { Logger } from '../observability/logger.ts';
import type { MessagingClient } from '../provider/messaging-client.ts';
import type { AppConfig } from './config.ts';

/** Registers each location's webhook URL for both event kinds; idempotent across restarts. */
export async function registerWebhooks(
  config: AppConfig,
  clients: Map<string, MessagingClient>,
  logger: Logger,
) {
  for (const location of config.locations) {
    const url = `${config.publicUrl}/webhooks/${location.name}/${location.webhookSecret}`;
    const client = clients.get(location.name);
    if (!client) continue;
    await client.webhooks.ensure(url, ['sms.status', 'sms.reply']);
    logger.info({ location: location.name }, 'webhook registered for sms.status and sms.reply');
  }
}
