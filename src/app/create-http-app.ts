import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Logger } from '../observability/logger.ts';
import type { NotificationOutcome } from '../observability/metrics.ts';
import {
  createWebhookRouter,
  type WebhookRouterOptions,
} from '../webhook/create-webhook-router.ts';
import { createOpsRouter, type OpsRouterOptions } from './create-ops-router.ts';

export interface HttpAppOptions extends WebhookRouterOptions {
  logger: Logger;
  /** Extra routers mounted after the webhook (admin, dev phone). */
  extra?: express.Router[];
  /** `/healthz`, `/readyz` and `/metrics`; without it, a bare `/healthz` only. */
  ops?: OpsRouterOptions;
  /** Refuses webhook requests with 503 (the service retries) while stopping or overloaded. */
  gate?: WebhookGate;
}

export interface WebhookGate {
  draining(): boolean;
  /** Webhook requests in flight at once; past it, 503 at once (REPLYFLOW_MAX_INFLIGHT). */
  maxInflight: number;
  /** Hears each refusal (metrics). */
  onRefused?(outcome: Extract<NotificationOutcome, 'draining' | 'overloaded'>): void;
}

/** The HTTP face of replyflow: health, readiness and metrics, the webhook route, and JSON errors. */
export function createHttpApp(options: HttpAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  // Webhook and API answers are never cached: no SHA-1 of every body for an ETag.
  app.set('etag', false);
  if (options.ops) app.use(createOpsRouter(options.ops));
  else {
    app.get('/healthz', (_req, res) => {
      res.json({ ok: true });
    });
  }
  if (options.gate) app.use('/webhooks', gateWebhook(options.gate));
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

/**
 * Answers 503 before reading the body when the process is stopping or already holds
 * `maxInflight` webhook requests: nothing is acknowledged that cannot be stored, and the
 * service retries it later (here or on another instance).
 */
function gateWebhook(gate: WebhookGate) {
  let inflight = 0;
  return (_req: Request, res: Response, next: NextFunction) => {
    const refused = gate.draining()
      ? 'draining'
      : inflight >= gate.maxInflight
        ? 'overloaded'
        : undefined;
    if (refused) {
      gate.onRefused?.(refused);
      // A stopping process also lets go of the connection, so the retry may land elsewhere.
      if (refused === 'draining') res.set('connection', 'close');
      res
        .status(503)
        .set('retry-after', '1')
        .json({
          status: 503,
          message:
            refused === 'draining'
              ? 'stopping: retry later'
              : 'too many notifications in flight: retry later',
        });
      return;
    }
    inflight++;
    res.once('close', () => inflight--);
    next();
  };
}
