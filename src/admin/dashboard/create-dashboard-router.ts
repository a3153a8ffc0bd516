import { Router } from 'express';
import type { LocationConfig } from '../../app/config.ts';
import type { BotRegistry } from '../../bot/bot-registry.ts';
import type { Logger } from '../../observability/logger.ts';
import type { Store } from '../../store/store.ts';
import type { AdminSessions } from './admin-session.ts';
import { botRoutes } from './bot-routes.ts';
import { campaignPagesRoutes } from './campaign-pages-routes.ts';
import { conversationRefs } from './conversation-refs.ts';
import { conversationRoutes } from './conversation-routes.ts';
import { loginRoutes } from './login-routes.ts';
import { openApiDocument } from './openapi-document.ts';
import { readDashboardOverview } from './read-dashboard-overview.ts';
import type { AdminAccess } from './require-admin-access.ts';
import { resultsRoutes } from './results-routes.ts';
import { assetNames, sendFile } from './serve-page.ts';

export interface DashboardRouterOptions {
  store: Store;
  registry: BotRegistry;
  locations: readonly LocationConfig[];
  adminToken: string | undefined;
  readToken: string | undefined;
  sessions: AdminSessions | undefined;
  now(): number;
  logger: Logger;
}

/** The dashboard's HTML pages and their files: routes that are not part of the JSON API. */
export const dashboardPages: ReadonlyArray<{ path: string; example: string }> = [
  { path: '/admin', example: '/admin' },
  { path: '/admin/results', example: '/admin/results' },
  { path: '/admin/bots/:location/:bot', example: '/admin/bots/paris/survey' },
  { path: '/admin/conversations/:ref', example: '/admin/conversations/x' },
  // Campaign pages share their paths with the JSON API: HTML to a browser only.
  { path: '/admin/campaigns', example: '/admin/campaigns' },
  { path: '/admin/campaigns/:location/:name', example: '/admin/campaigns/paris/spring' },
  { path: '/admin/assets/:file', example: '/admin/assets/dashboard.css' },
  { path: '/admin/login', example: '/admin/login' },
  { path: '/admin/login.css', example: '/admin/login.css' },
];

/**
 * The operator's dashboard, mounted behind `requireAdminAccess`: the first screen `GET /admin`
 * (`GET /admin/api/overview` every 5 s), the results `GET /admin/results` (`results-routes.ts`),
 * the login (`login-routes.ts`), `GET /admin/api/session` and `GET /admin/openapi.json`. Plain
 * HTML, CSS and scripts from `page/`, served under a `default-src 'self'` policy.
 */
export function createDashboardRouter(options: DashboardRouterOptions): Router {
  const { store, sessions } = options;
  const router = Router();
  router.use(loginRoutes(options));

  /** The CSRF token of the request's session, for its pages' `<meta name="csrf-token">`. */
  const csrfOf = (access: AdminAccess | undefined) =>
    access?.session && sessions ? sessions.csrfToken(access.session) : '';

  router.get('/admin', (_req, res) => {
    sendFile(res, 'overview.html', { csrf: csrfOf(res.locals.adminAccess) });
  });
  router.get('/admin/results', (_req, res) => {
    sendFile(res, 'results.html', { csrf: csrfOf(res.locals.adminAccess) });
  });
  router.get('/admin/assets/:file', (req, res) => {
    if (!assetNames.includes(req.params.file)) res.status(404).json({ error: 'not found' });
    else sendFile(res, req.params.file);
  });

  router.get('/admin/api/session', (_req, res) => {
    const access = res.locals.adminAccess as AdminAccess;
    res.set('cache-control', 'no-store').json({
      role: access.role,
      via: access.via,
      ...(access.session && { csrfToken: csrfOf(access) }),
    });
  });
  router.get('/admin/api/overview', async (_req, res) => {
    const overview = await readDashboardOverview(
      store,
      options.registry,
      options.locations,
      options.now(),
    );
    res.set('cache-control', 'no-store').json(overview);
  });
  router.use(resultsRoutes(options));
  router.use(campaignPagesRoutes({ ...options, csrf: (res) => csrfOf(res.locals.adminAccess) }));
  // One key for the references the bot page writes and the conversation page opens.
  const refs = conversationRefs(options.adminToken);
  router.use(botRoutes({ ...options, refs, csrfOf }));
  router.use(conversationRoutes({ ...options, refs, csrfOf }));
  router.get('/admin/openapi.json', (_req, res) => {
    res.json(openApiDocument());
  });
  return router;
}
