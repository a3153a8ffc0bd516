import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { registerWebhookRequestSchema, type Webhook } from '../../provider/schemas/webhook.ts';
import { authenticatedKeyPair } from '../authenticate.ts';
import { apiErrorCodes, EmulatorApiError, notFound } from '../emulator-api-error.ts';
import type { EmulatorContext } from '../emulator-context.ts';
import { isLoopback } from '../is-loopback.ts';
import { parseRequest } from './parse-request.ts';

/**
 * `POST /webhooks`, `GET /webhooks` (spec §4) and `DELETE /webhooks/{id}`, our documented
 * assumption for the unregistering the spec mentions without showing. Records are
 * `{ id, url, events }`, per location. URLs outside loopback are refused unless the emulator
 * was started with `allowRemoteWebhooks` (its calls could otherwise reach a private network).
 */
export function webhookRoutes(context: EmulatorContext): Router {
  const router = Router();
  const webhooksOf = (res: Parameters<typeof authenticatedKeyPair>[0]) =>
    context.locations.get(authenticatedKeyPair(res).location).webhooks;

  router.post('/webhooks', (req, res) => {
    const request = parseRequest(registerWebhookRequestSchema, req.body);
    const host = new URL(request.url).hostname;
    if (!context.config.allowRemoteWebhooks && !isLoopback(host)) {
      throw new EmulatorApiError(
        400,
        apiErrorCodes.INVALID_PARAMETER,
        `invalid parameter 'url': the emulator calls only this machine (127.0.0.1, ::1, localhost), not '${host}'; start it with --allow-remote-webhooks to call other hosts`,
        'url',
      );
    }
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
