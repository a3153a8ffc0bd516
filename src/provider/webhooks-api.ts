import { z } from 'zod';
import { errorCodes, ValidationError } from '../errors.ts';
import type { ProviderCall, ProviderTransport } from './provider-transport.ts';
import {
  type RegisterWebhookRequest,
  registerWebhookRequestSchema,
  type Webhook,
  type WebhookEvent,
  webhookSchema,
} from './schemas/webhook.ts';

/** What `webhooks.ensure` found and did. */
export interface EnsureWebhookResult {
  /** Every webhook registered for the URL, the new one included. */
  webhooks: Webhook[];
  /** The webhook registered by this call; empty when the URL already had every event. */
  created: Webhook[];
}

export interface WebhooksApi {
  /**
   * Registers a webhook (`POST /webhooks`). Not retried, and not idempotent: prefer `ensure` at
   * start-up.
   *
   * @example
   * const hook = await client.webhooks.register('https://bots.example.com/webhooks/paris/3f9c…', ['sms.status', 'sms.reply']);
   */
  register(url: string, events: readonly WebhookEvent[]): Promise<Webhook>;
  /**
   * Lists the registered webhooks (`GET /webhooks`), retried on transient failures.
   *
   * @example
   * for (const hook of await client.webhooks.list()) console.log(hook.id, hook.url, hook.events);
   */
  list(): Promise<Webhook[]>;
  /**
   * Unregisters a webhook (`DELETE /webhooks/{id}`, our assumption: the spec states the
   * capability without its method and path).
   *
   * @example
   * await client.webhooks.remove('wh_42');
   */
  remove(id: string): Promise<void>;
  /**
   * Makes sure `url` receives `events`: lists the webhooks first and registers only the events
   * that no webhook of the same URL already has, so a restart never piles up duplicates. The
   * whole list-then-register cycle is retried on transient failures, each retry listing again.
   *
   * @example
   * const { created } = await client.webhooks.ensure('https://bots.example.com/webhooks/paris/3f9c…', ['sms.status', 'sms.reply']);
   * created.length; // 0 on every start after the first
   */
  ensure(url: string, events: readonly WebhookEvent[]): Promise<EnsureWebhookResult>;
}

export interface WebhooksApiDeps {
  transport: ProviderTransport;
  idempotent<T>(call: ProviderCall<T>): Promise<T>;
  retryTransient<T>(run: () => Promise<T>): Promise<T>;
}

const webhookListSchema = z.array(webhookSchema);

export function createWebhooksApi(deps: WebhooksApiDeps): WebhooksApi {
  const listOnce = () =>
    deps.transport.request({ method: 'GET', path: '/webhooks', schema: webhookListSchema });
  const registerOnce = (request: RegisterWebhookRequest) =>
    deps.transport.request({
      method: 'POST',
      path: '/webhooks',
      body: request,
      schema: webhookSchema,
    });

  return {
    async register(url, events) {
      return registerOnce(checkWebhook(url, events));
    },
    list() {
      return deps.idempotent({ method: 'GET', path: '/webhooks', schema: webhookListSchema });
    },
    async remove(id) {
      await deps.transport.request({
        method: 'DELETE',
        path: `/webhooks/${encodeURIComponent(id)}`,
        schema: z.unknown(),
      });
    },
    async ensure(url, events) {
      const wanted = checkWebhook(url, events);
      return deps.retryTransient(async () => {
        const same = (await listOnce()).filter((hook) => sameUrl(hook.url, wanted.url));
        const covered = new Set(same.flatMap((hook) => hook.events));
        const missing = wanted.events.filter((event) => !covered.has(event));
        if (missing.length === 0) return { webhooks: same, created: [] };
        const created = await registerOnce({ url: wanted.url, events: missing });
        return { webhooks: [...same, created], created: [created] };
      });
    },
  };
}

function checkWebhook(url: string, events: readonly WebhookEvent[]): RegisterWebhookRequest {
  const parsed = registerWebhookRequestSchema.safeParse({ url, events: [...new Set(events)] });
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'webhook'}: ${i.message}`);
    throw new ValidationError(
      errorCodes.INVALID_WEBHOOK,
      `webhook ${url} cannot be registered: ${issues.join('; ')} (events are sms.status and/or sms.reply)`,
      String(parsed.error.issues[0]?.path[0] ?? 'url'),
    );
  }
  return parsed.data;
}

/** Same address once written the same way (`HTTPS://Host:443/a` is `https://host/a`). */
function sameUrl(a: string, b: string): boolean {
  return URL.canParse(a) && URL.canParse(b) ? new URL(a).href === new URL(b).href : a === b;
}
