import { createRequire } from 'node:module';
import type { NextFunction, Request, Response, Router } from 'express';
import {
  handleNotification,
  type NotificationDeps,
  type NotificationResult,
} from './handle-notification.ts';
import { secretMatches } from './secret-matches.ts';

export interface WebhookRouterOptions extends NotificationDeps {
  /** Webhook secret per location name; a location absent here is unknown (404). */
  secrets: ReadonlyMap<string, string>;
  /** Largest accepted body, in body-parser's notation; default `defaultBodyLimit`. */
  limit?: string;
  /** Hears how each notification went and how long it took (metrics). */
  onNotification?: (result: NotificationResult, durationMs: number) => void;
}

const load = createRequire(import.meta.url);

/** The largest notification body either webhook path takes unless told otherwise. */
export const defaultBodyLimit = '256kb';

/**
 * `POST /webhooks/:location/:secret`: the service's notifications come in here. Unknown
 * location or wrong secret → 404 (the same answer, so the secret cannot be probed);
 * unusable body → 400 and a dead letter; store down → 503; otherwise 200 once durable.
 */
export function createWebhookRouter(options: WebhookRouterOptions): Router {
  // Express loads with the first router: a process that only loads bots (a campaign import,
  // the linter), which imports this module through `replyflow`, does not pay its 7 MiB.
  const express = load('express') as typeof import('express');
  const router = express.Router();
  const limit = options.limit ?? defaultBodyLimit;
  router.post(
    '/webhooks/:location/:secret',
    (req: Request, res: Response, next: NextFunction) => {
      if (!knownSecret(options, String(req.params.location), String(req.params.secret))) {
        res.status(404).json({ error: 'not found' });
        return;
      }
      next();
    },
    express.text({ type: () => true, limit, defaultCharset: 'utf-8' }),
    async (req: Request, res: Response) => {
      const raw = typeof req.body === 'string' ? req.body : '';
      const result = await receiveNotification(options, String(req.params.location), raw);
      res.status(result.status).json(result);
    },
  );
  router.use('/webhooks', bodyErrors);
  return router;
}

/**
 * Whether `secret` is the webhook secret of `location`, compared in constant time; an unknown
 * location is refused the same way. Both webhook paths (this route and the fast path) ask it.
 */
export function knownSecret(
  options: Pick<WebhookRouterOptions, 'secrets'>,
  location: string,
  secret: string,
): boolean {
  const expected = options.secrets.get(location);
  return expected !== undefined && secretMatches(secret, expected);
}

/** `handleNotification`, with its duration told to `onNotification`: both webhook paths' core. */
export async function receiveNotification(
  options: WebhookRouterOptions,
  location: string,
  raw: string,
): Promise<NotificationResult> {
  const startedAt = performance.now();
  const result = await handleNotification(options, location, raw);
  options.onNotification?.(result, performance.now() - startedAt);
  return result;
}

/** Body-parser failures (too large, bad encoding) are the sender's fault: 4xx, never 5xx. */
function bodyErrors(error: unknown, _req: Request, res: Response, next: NextFunction): void {
  const status = (error as { status?: number }).status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    res.status(status).json({ status, message: (error as Error).message });
    return;
  }
  next(error);
}
