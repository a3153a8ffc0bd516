import type { Logger } from '../observability/logger.ts';
import type { MessagingClient } from '../provider/messaging-client.ts';
import type { AppConfig } from './config.ts';
import { webhookUrl } from './webhook-url.ts';

/** Registers each location's webhook URL for both event kinds; idempotent across restarts. */
export async function registerWebhooks(
  config: AppConfig,
  clients: Map<string, MessagingClient>,
  logger: Logger,
) {
  if (!config.publicUrl) return;
  for (const location of config.locations) {
    const client = clients.get(location.name);
    if (!client || !location.webhookSecret) continue;
    const url = webhookUrl(config.publicUrl, location.name, location.webhookSecret);
    await client.webhooks.ensure(url, ['sms.status', 'sms.reply']);
    logger.info({ location: location.name }, 'webhook registered for sms.status and sms.reply');
  }
}
