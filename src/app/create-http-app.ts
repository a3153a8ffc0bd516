import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Logger } from '../observability/logger.ts';
import {
  createWebhookRouter,
  type WebhookRouterOptions,
} from '../webhook/create-webhook-router.ts';

export interface HttpAppOptions extends WebhookRouterOptions {
  logger: Logger;
  /** Extra routers mounted after the webhook (admin, dev phone). */
  extra?: express.Router[];
}

/** The HTTP face of replyflow: the webhook route, a health check, and JSON errors. */
export function createHttpApp(options: HttpAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  // Webhook and API answers are never cached: no SHA-1 of every body for an ETag.
  app.set('etag', false);
  app.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });
  app.use(createWebhookRouter(options));
  for (const router of options.extra ?? []) app.use(router);
  app.use((_req, res) => {
    res.status(404).json({ error: 'not found' });
  });
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    options.logger.error({ err: error }, 'request failed');
    res.status(500).json({ error: 'internal error' });
  });
  return app;
}
