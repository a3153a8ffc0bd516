import { Router } from 'express';
import { requireAdminToken } from '../admin/require-admin-token.ts';
import type { Metrics } from '../observability/metrics.ts';
import { checkReadiness, type ReadinessDeps } from './check-readiness.ts';

export interface OpsRouterOptions extends ReadinessDeps {
  metrics: Metrics;
  /** REPLYFLOW_ADMIN_TOKEN: when set, `/metrics` needs it. */
  adminToken: string | undefined;
}

/**
 * What an orchestrator and a scraper call: `GET /healthz` (liveness: the event loop answers),
 * `GET /readyz` (200 only when ready, else 503 with the reason) and `GET /metrics`
 * (Prometheus text, behind the admin token when one is set). Every role serves them.
 */
export function createOpsRouter(options: OpsRouterOptions): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });
  router.get('/readyz', async (_req, res) => {
    const readiness = await checkReadiness(options);
    res.status(readiness.ready ? 200 : 503).json(readiness);
  });
  router.get(
    '/metrics',
    requireAdminToken({ token: options.adminToken, whenUnset: 'open' }),
    async (_req, res) => {
      const { registry } = options.metrics;
      res.type(registry.contentType).send(await registry.metrics());
    },
  );
  return router;
}
