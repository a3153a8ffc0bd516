import { Router } from 'express';
import { z } from 'zod';
import type { Logger } from '../observability/logger.ts';
import { StoreUnavailableError } from '../store/store-errors.ts';
import { type CancelDeps, cancelStartByKey } from './cancel-start-by-key.ts';

export interface ScheduledStartsRouterOptions extends CancelDeps {
  logger: Logger;
}

const querySchema = z.object({ location: z.string().min(1).max(100).optional() });

/**
 * `DELETE /admin/conversations/scheduled/:key[?location=]` (mounted behind the admin token):
 * cancels a start posted with that `key` that has not fired (`cancelStartByKey`).
 */
export function createScheduledStartsRouter(options: ScheduledStartsRouterOptions): Router {
  const router = Router();
  router.delete('/admin/conversations/scheduled/:key', async (req, res) => {
    const query = querySchema.safeParse(req.query);
    if (!query.success) {
      res.status(400).json({ error: 'location: is invalid', field: 'location' });
      return;
    }
    try {
      const answer = await cancelStartByKey(options, {
        location: query.data.location,
        key: req.params.key,
      });
      res.status(answer.status).json(answer.body);
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      options.logger.error({ err: error }, 'admin cancel: store unavailable');
      res.status(503).json({ error: 'store unavailable, retry later' });
    }
  });
  return router;
}
