import express, { Router } from 'express';
import { z } from 'zod';
import { verifyWebhook } from '../../events/verify-webhook.ts';
import { WebhookVerificationError } from '../../events/webhook-verification-error.ts';
import type { Logger } from '../../observability/logger.ts';
import type { DevReceiver } from './dev-receiver.ts';

const querySchema = z.object({ bot: z.string().min(1).max(200).optional() });

/**
 * The dev receiver's routes (`replyflow dev` only, behind its Host check like every dev route):
 * - `POST /dev/receiver`: a signed event, verified as a receiver would (`verifyWebhook` on the
 *   raw body): 204, or 400 naming what failed;
 * - `GET /dev/receiver/events[?bot=]`: the events taken, newest first (`{ events, refused }`).
 */
export function receiverRoutes(receiver: DevReceiver, logger?: Logger): Router {
  const router = Router();
  router.post('/dev/receiver', express.raw({ type: () => true, limit: '1mb' }), (req, res) => {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    try {
      receiver.take(verifyWebhook(receiver.secret, req.headers, body));
      res.status(204).end();
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      receiver.refuse();
      logger?.warn({ reason: error.reason }, `dev receiver: delivery refused: ${error.message}`);
      res.status(400).json({ error: error.message, reason: error.reason });
    }
  });
  router.get('/dev/receiver/events', (req, res) => {
    const query = querySchema.safeParse(req.query);
    if (!query.success) {
      res.status(400).json({ error: 'bot: must be one bot id, such as ?bot=appointment' });
      return;
    }
    res.json({ events: receiver.list(query.data.bot), refused: receiver.refused });
  });
  return router;
}
