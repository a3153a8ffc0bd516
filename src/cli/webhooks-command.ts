import { type Command, InvalidArgumentError } from 'commander';
import type { WebhookEvent } from '../provider/schemas/webhook.ts';
import { clientAction, withClientOptions } from './client-action.ts';
import { registerEventDeliveryCommands } from './event-deliveries-command.ts';
import { formatRecord, formatTable } from './format-table.ts';

interface RegisterOptions {
  url: string;
  events: WebhookEvent[];
}

/**
 * `replyflow webhooks list|register|ensure|remove`: where the service sends notifications; and
 * `deliveries` / `replay`: the events replyflow sends to the systems that asked.
 */
export function registerWebhooksCommand(program: Command): void {
  const webhooks = program
    .command('webhooks')
    .description(
      "Manage the webhooks the service calls, and the outbound events' deliveries (deliveries, replay)",
    );
  registerEventDeliveryCommands(webhooks);
  withClientOptions(webhooks.command('list').description('List the registered webhooks')).action(
    clientAction(async (client) => {
      const list = await client.webhooks.list();
      return { json: list, text: formatTable(list, ['id', 'url', 'events']) };
    }),
  );
  const target = (command: Command) =>
    withClientOptions(
      command
        .requiredOption('--url <url>', 'the address the service will POST notifications to')
        .requiredOption('--events <list>', 'comma-separated: sms.status, sms.reply', parseEvents),
    );
  target(
    webhooks.command('register').description('Register a webhook (even if one exists)'),
  ).action(
    clientAction<RegisterOptions>(async (client, options) => {
      const hook = await client.webhooks.register(options.url, options.events);
      return {
        json: hook,
        text: formatRecord({ id: hook.id, url: hook.url, events: hook.events }),
      };
    }),
  );
  target(
    webhooks
      .command('ensure')
      .description('Register only the events no webhook of that URL has yet'),
  ).action(
    clientAction<RegisterOptions>(async (client, options) => {
      const result = await client.webhooks.ensure(options.url, options.events);
      const summary = result.created.length
        ? `registered ${result.created.map((h) => h.id).join(', ')}`
        : 'already registered, nothing to do';
      return {
        json: result,
        text: `${summary}\n${formatTable(result.webhooks, ['id', 'url', 'events'])}`,
      };
    }),
  );
  withClientOptions(
    webhooks.command('remove').description('Unregister a webhook').argument('<id>', 'webhook id'),
  ).action(
    clientAction(async (client, _options, [id = '']) => {
      await client.webhooks.remove(id);
      return { json: { removed: id }, text: `removed webhook ${id}` };
    }),
  );
}

/**
 * The events of `webhookEventSchema`, without loading zod to parse an option: the record's type
 * makes the compiler say when the schema's events change.
 */
const webhookEvents: Record<WebhookEvent, true> = { 'sms.status': true, 'sms.reply': true };

function parseEvents(value: string): WebhookEvent[] {
  const events = value
    .split(',')
    .map((event) => event.trim())
    .filter(Boolean);
  for (const event of events) {
    if (!Object.hasOwn(webhookEvents, event)) {
      throw new InvalidArgumentError(`'${event}' is not an event: use sms.status and/or sms.reply`);
    }
  }
  return events as WebhookEvent[];
}
