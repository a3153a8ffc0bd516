import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { registerWebhookRequestSchema, type Webhook } from '../../provider/schemas/webhook.ts';
import { authenticatedKeyPair } from '../authenticate.ts';
import { checkWebhookUrl } from '../check-webhook-url.ts';
import { notFound } from '../emulator-api-error.ts';
import type { EmulatorContext } from '../emulator-context.ts';
import { parseRequest } from './parse-request.ts';

/**
 * `POST /webhooks`, `GET /webhooks` (spec §4) and `DELETE /webhooks/{id}`, our documented
 * assumption for the unregistering the spec mentions without showing. Records are
 * `{ id, url, events }`, per location. A URL the emulator must not call is refused
 * (`checkWebhookUrl`: its calls could otherwise reach this machine or a private network).
 */
export function webhookRoutes(context: EmulatorContext): Router {
  const router = Router();
  const webhooksOf = (res: Parameters<typeof authenticatedKeyPair>[0]) =>
    context.locations.get(authenticatedKeyPair(res).location).webhooks;

  router.post('/webhooks', async (req, res) => {
    const request = parseRequest(registerWebhookRequestSchema, req.body);
    await checkWebhookUrl(new URL(request.url), context.config, context.lookup);
    const webhook: Webhook = {
      id: randomUUID(),
      url: request.url,
      events: [...new Set(request.events)],
    };
    webhooksOf(res).set(webhook.id, webhook);
    res.status(201).json(webhook);
  });

  router.get('/webhooks', (_req, res) => {
    res.json([...webhooksOf(res).values()]);
  });

  router.delete('/webhooks/:id', (req, res) => {
    if (!webhooksOf(res).delete(req.params.id)) throw notFound(`webhook ${req.params.id}`);
    res.status(204).send();
  });

  return router;
}
