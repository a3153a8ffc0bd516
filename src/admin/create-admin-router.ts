import express, { type Request, Router } from 'express';
import type { AppConfig } from '../app/config.ts';
import type { BotRegistry } from '../bot/bot-registry.ts';
import type { Logger } from '../observability/logger.ts';
import type { Clock } from '../scheduler/clock.ts';
import type { Store } from '../store/store.ts';
import { StoreUnavailableError } from '../store/store-errors.ts';
import { createCampaignsRouter } from './campaigns-router.ts';
import { adminSessions } from './dashboard/admin-session.ts';
import { createDashboardRouter } from './dashboard/create-dashboard-router.ts';
import { requireAdminAccess } from './dashboard/require-admin-access.ts';
import { createScheduledStartsRouter } from './scheduled-starts-router.ts';
import { startRequestSchema, startWithPolicy } from './start-with-policy.ts';
import { createSuppressionsRouter } from './suppressions-router.ts';

export interface AdminRouterOptions {
  store: Store;
  registry: BotRegistry;
  clock: Clock;
  config: Pick<AppConfig, 'locations' | 'adminToken' | 'adminReadToken'>;
  logger: Logger;
  /**
   * Requests served with full access and no credential: `replyflow dev` passes those from
   * loopback (its Host check has already refused any other name).
   */
  openTo?: (req: Request) => boolean;
}

/**
 * The admin API and the operator's dashboard (`dashboard/`), behind REPLYFLOW_ADMIN_TOKEN, the
 * read-only REPLYFLOW_ADMIN_READ_TOKEN or a dashboard login (`dashboard/require-admin-access.ts`:
 * 403 when no token is configured, 401 on a missing or wrong one): `POST /admin/conversations {location?, bot, phone, input?, key?, at?,
 * relativeTo?, offset?, deliveryWindow?, sendIfWithin?, timeZone?}` starts a bot's conversation
 * now or at its time (202), the way a booking system sends an appointment confirmation, and
 * `DELETE /admin/conversations/scheduled/:key` cancels one that has not fired;
 * `/admin/suppressions` imports, exports and removes opt-outs (`suppressions-router.ts`);
 * `/admin/campaigns` creates, imports again, shows, pauses, resumes and cancels campaigns
 * (`campaigns-router.ts`).
 */
export function createAdminRouter(options: AdminRouterOptions): Router {
  const router = Router();
  const { adminToken, adminReadToken: readToken } = options.config;
  const sessions = adminToken === undefined ? undefined : adminSessions({ adminToken, readToken });
  const now = () => options.clock.now();
  router.use(
    '/admin',
    requireAdminAccess({ adminToken, readToken, sessions, openTo: options.openTo, now }),
  );
  router.use(
    createDashboardRouter({
      store: options.store,
      registry: options.registry,
      locations: options.config.locations,
      adminToken,
      readToken,
      sessions,
      now,
      logger: options.logger,
    }),
  );
  router.post('/admin/conversations', express.json({ limit: '64kb' }), async (req, res) => {
    const parsed = startRequestSchema.safeParse(req.body ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.map(String).join('.') ?? '';
      res
        .status(400)
        .json({ error: `${field || 'body'}: ${issue?.message ?? 'is invalid'}`, field });
      return;
    }
    try {
      const answer = await startWithPolicy(
        {
          store: options.store,
          registry: options.registry,
          locations: options.config.locations,
          now: () => options.clock.now(),
          logger: options.logger,
        },
        parsed.data,
      );
      res.status(answer.status).json(answer.body);
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      options.logger.error({ err: error }, 'admin start: store unavailable');
      res.status(503).json({ error: 'store unavailable, retry later' });
    }
  });
  router.use(
    createScheduledStartsRouter({
      store: options.store,
      locations: options.config.locations,
      now: () => options.clock.now(),
      logger: options.logger,
    }),
  );
  router.use(
    createSuppressionsRouter({
      store: options.store,
      locations: options.config.locations,
      now: () => options.clock.now(),
      logger: options.logger,
    }),
  );
  router.use(
    createCampaignsRouter({
      store: options.store,
      registry: options.registry,
      locations: options.config.locations,
      now: () => options.clock.now(),
      logger: options.logger,
    }),
  );
  router.use(
    '/admin',
    (error: unknown, _req: express.Request, res: express.Response, next: express.NextFunction) => {
      const status = (error as { status?: number }).status;
      if (typeof status === 'number' && status >= 400 && status < 500) {
        res.status(status).json({ error: `body: ${(error as Error).message}` });
        return;
      }
      next(error);
    },
  );
  return router;
}
