import { type Request, type Response, Router } from 'express';
import type { LocationConfig } from '../../app/config.ts';
import type { Logger } from '../../observability/logger.ts';
import { listResults } from '../../results/list-results.ts';
import { maskedResult, shown, writeResults } from '../../results/write-results.ts';
import type { Store } from '../../store/store.ts';
import { requestLocation } from '../request-location.ts';
import type { AdminAccess } from './require-admin-access.ts';
import { type ResultsRequest, resultsQuerySchema } from './results-query.ts';

export interface ResultsRoutesOptions {
  store: Store;
  locations: readonly LocationConfig[];
  logger: Logger;
}

/**
 * `GET /admin/api/results` (JSON, a page of `limit` from `offset`, phones masked, `next` when
 * more follow) and `GET /admin/api/results.csv` (the whole selection streamed,
 * `write-results.ts`: formula cells escaped; phones masked unless the full-access token asks
 * for them whole with `phones=full`: the conversation's page is the only other place a whole
 * number shows).
 */
export function resultsRoutes(options: ResultsRoutesOptions): Router {
  const { store, logger } = options;
  const router = Router();

  router.get('/admin/api/results', async (req, res) => {
    const query = queryOf(req, res);
    if (!query) return;
    const end = query.offset + query.limit;
    const page: ReturnType<typeof shown>[] = [];
    let seen = 0;
    let more = false;
    for await (const batch of listResults(store, query.bot, storeQuery(query))) {
      for (const result of batch) {
        if (query.to !== undefined && result.startedAt >= query.to) continue;
        if (seen >= end) {
          more = true;
          break;
        }
        if (seen++ >= query.offset) page.push(shown(maskedResult(result)));
      }
      if (more) break;
    }
    res.set('cache-control', 'no-store').json({
      results: page,
      offset: query.offset,
      ...(more && { next: end }),
    });
  });

  router.get('/admin/api/results.csv', async (req, res) => {
    const query = queryOf(req, res);
    if (!query) return;
    const access = res.locals.adminAccess as AdminAccess | undefined;
    if (query.phones === 'full' && access?.role !== 'full') {
      res.status(403).json({
        error:
          'phones=full needs the full-access admin token; the read-only one sees numbers masked',
        field: 'phones',
      });
      return;
    }
    res
      .status(200)
      .type('text/csv; charset=utf-8')
      .set({
        'cache-control': 'no-store',
        'content-disposition': `attachment; filename="${query.bot.replace(/[^\w-]/g, '_')}-results.csv"`,
      });
    try {
      await writeResults(store, query.bot, res, {
        format: 'csv',
        ...storeQuery(query),
        ...(query.to !== undefined && { until: query.to }),
        maskPhones: query.phones !== 'full',
      });
      res.end();
    } catch (error) {
      // The answer has begun: only a cut stream can say it failed.
      logger.error({ err: error, bot: query.bot }, 'admin results: CSV cut short');
      res.destroy();
    }
  });

  /** The parsed query, or undefined once a 400 is answered. */
  function queryOf(req: Request, res: Response): ResultsRequest | undefined {
    const parsed = resultsQuerySchema.safeParse(req.query);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.map(String).join('.') ?? '';
      res
        .status(400)
        .json({ error: `${field || 'query'}: ${issue?.message ?? 'is invalid'}`, field });
      return undefined;
    }
    if (parsed.data.location !== undefined) {
      const location = requestLocation(options.locations, parsed.data.location);
      if (typeof location === 'string') {
        res.status(400).json({ error: location, field: 'location' });
        return undefined;
      }
    }
    return parsed.data;
  }

  return router;
}

function storeQuery(query: ResultsRequest) {
  return {
    ...(query.from !== undefined && { since: query.from }),
    ...(query.location !== undefined && { location: query.location }),
    ...(query.campaign !== undefined && { campaign: query.campaign }),
  };
}
