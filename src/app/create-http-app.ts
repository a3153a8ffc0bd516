import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Logger } from '../observability/logger.ts';
import type { NotificationOutcome } from '../observability/metrics.ts';
import {
  createWebhookFastPath,
  type WebhookAdmission,
  writeJson,
} from '../webhook/create-webhook-fast-path.ts';
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
  /**
   * Sees every request first, the webhook's fast path included, and calls `next` to let it on
   * (`dev`: `requireLocalHost`). `createHttpListener` only.
   */
  guard?: (req: IncomingMessage, res: ServerResponse, next: () => void) => void;
  /** Express's `trust proxy` (REPLYFLOW_TRUST_PROXY): whose X-Forwarded-* headers count. Default none. */
  trustProxy?: number | string[];
}

export interface WebhookGate {
  draining(): boolean;
  /** Webhook requests in flight at once; past it, 503 at once (REPLYFLOW_MAX_INFLIGHT). */
  maxInflight: number;
  /** Hears each refusal (metrics). */
  onRefused?(outcome: Extract<NotificationOutcome, 'draining' | 'overloaded'>): void;
}

/**
 * The HTTP face of replyflow as a server's request listener: the usual notification is taken
 * before Express (`createWebhookFastPath`), everything else is `createHttpApp`'s, and both share
 * one admission gate, so `maxInflight` counts every webhook request whichever path takes it.
 */
export function createHttpListener(options: HttpAppOptions): RequestListener {
  const admission = options.gate && gateAdmission(options.gate);
  const app = buildApp(options, admission);
  const fastPath = createWebhookFastPath(options, admission);
  const route: RequestListener = (req, res) => {
    if (!fastPath(req, res)) app(req, res);
  };
  const { guard } = options;
  return guard ? (req, res) => guard(req, res, () => route(req, res)) : route;
}

/** The HTTP face of replyflow: health, readiness and metrics, the webhook route, and JSON errors. */
export function createHttpApp(options: HttpAppOptions): Express {
  return buildApp(options, options.gate && gateAdmission(options.gate));
}

function buildApp(options: HttpAppOptions, admission: WebhookAdmission | undefined): Express {
  const app = express();
  app.disable('x-powered-by');
  if (options.trustProxy !== undefined) app.set('trust proxy', options.trustProxy);
  // Webhook and API answers are never cached: no SHA-1 of every body for an ETag.
  app.set('etag', false);
  if (options.ops) app.use(createOpsRouter(options.ops));
  else {
    app.get('/healthz', (_req, res) => {
      res.json({ ok: true });
    });
  }
  if (admission) {
    app.use('/webhooks', (_req: Request, res: Response, next: NextFunction) => {
      if (admission(res)) next();
    });
  }
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
 * service retries it later (here or on another instance). Says whether the request may go on.
 */
function gateAdmission(gate: WebhookGate): WebhookAdmission {
  let inflight = 0;
  return (res: ServerResponse) => {
    const refused = gate.draining()
      ? 'draining'
      : inflight >= gate.maxInflight
        ? 'overloaded'
        : undefined;
    if (refused) {
      gate.onRefused?.(refused);
      // A stopping process also lets go of the connection, so the retry may land elsewhere.
      if (refused === 'draining') res.setHeader('connection', 'close');
      res.setHeader('retry-after', '1');
      writeJson(res, 503, {
        status: 503,
        message:
          refused === 'draining'
            ? 'stopping: retry later'
            : 'too many notifications in flight: retry later',
      });
      return false;
    }
    inflight++;
    res.once('close', () => inflight--);
    return true;
  };
}
