import { type Request, type Response, Router } from 'express';
import type { LocationConfig } from '../../app/config.ts';
import { readCampaignProgress } from '../../campaigns/read-campaign-progress.ts';
import type { Logger } from '../../observability/logger.ts';
import type { Store } from '../../store/store.ts';
import { answerCampaignError } from '../answer-campaign-error.ts';
import { sendFile } from './serve-page.ts';

export interface CampaignPagesOptions {
  store: Store;
  locations: readonly LocationConfig[];
  logger: Logger;
  /** The CSRF token of the request's session, for the pages' `<meta name="csrf-token">`. */
  csrf(res: Response): string;
}

const namePattern = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The campaign pages: `GET /admin/campaigns` (the list and a dry-run preview of an upload) and
 * `GET /admin/campaigns/:location/:name` (one campaign, its progress chart and its buttons), and
 * `GET /admin/api/campaigns/:location/:name/progress` (its funnel hour by hour). The pages share
 * their paths with the JSON API (`campaigns-router.ts`, mounted after): a page answers a browser
 * (HTML preferred to JSON) only, and only for a configured location, so that
 * `GET /admin/campaigns/spring/results` stays the results of campaign `spring`.
 */
export function campaignPagesRoutes(options: CampaignPagesOptions): Router {
  const { store, logger } = options;
  const router = Router();
  const isLocation = (name: string) => options.locations.some((l) => l.name === name);

  router.get('/admin/campaigns', (req, res, next) => {
    if (!wantsPage(req)) return next();
    sendFile(res, 'campaigns.html', { csrf: options.csrf(res) });
  });
  router.get('/admin/campaigns/:location/:name', (req, res, next) => {
    if (!wantsPage(req) || !isLocation(req.params.location)) return next();
    sendFile(res, 'campaign.html', { csrf: options.csrf(res) });
  });

  router.get('/admin/api/campaigns/:location/:name/progress', async (req, res) => {
    const { location, name } = req.params;
    if (!isLocation(location)) {
      res.status(404).json({ error: `unknown location '${location}'`, field: 'location' });
      return;
    }
    if (!namePattern.test(name)) {
      res.status(400).json({
        error: 'name: a campaign name is 1 to 64 letters, digits, - or _',
        field: 'name',
      });
      return;
    }
    try {
      const hours = await readCampaignProgress(store, { location, name });
      res.set('cache-control', 'no-store').json({ hours });
    } catch (error) {
      answerCampaignError(res, error, logger, 'progress');
    }
  });
  return router;
}

/** A browser's navigation (HTML preferred); fetch, curl and the CLI get the JSON routes. */
function wantsPage(req: Request): boolean {
  return req.accepts(['json', 'html']) === 'html';
}
