import { type Request, type Response, Router } from 'express';
import { z } from 'zod';
import type { LocationConfig } from '../app/config.ts';
import type { BotRegistry } from '../bot/bot-registry.ts';
import { campaignReport } from '../campaigns/campaign-report.ts';
import { type CampaignAction, changeCampaignStatus } from '../campaigns/change-campaign-status.ts';
import { campaignView } from '../campaigns/import-report.ts';
import { listCampaigns } from '../campaigns/list-campaigns.ts';
import type { Logger } from '../observability/logger.ts';
import { writeResults } from '../results/write-results.ts';
import type { Store } from '../store/store.ts';
import { answerCampaignError } from './answer-campaign-error.ts';
import { campaignUploadRoute } from './campaign-upload-route.ts';
import { requestLocation } from './request-location.ts';

export interface CampaignsRouterOptions {
  store: Store;
  registry: BotRegistry;
  locations: readonly LocationConfig[];
  now(): number;
  logger: Logger;
}

const nameSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, {
  error: 'a campaign name is 1 to 64 letters, digits, - or _',
});
const querySchema = z.object({
  location: z.string().min(1).max(100).optional(),
  all: z.enum(['true', 'false']).optional(),
  format: z.enum(['csv', 'json']).optional(),
});

/**
 * `/admin/campaigns` (mounted behind the admin token), what `replyflow campaigns` does:
 * - `POST /admin/campaigns?name=…&bot=…` with the recipient file as the body: create, import
 *   again, or `dryRun=true` (`campaign-upload-route.ts`);
 * - `GET /admin/campaigns[?all=true]`: the campaigns with their counts (`_api`, the API's
 *   scheduled starts, with `all=true` only);
 * - `GET /admin/campaigns/:name`: the definition, the recipients per state and the funnel;
 * - `POST /admin/campaigns/:name/pause|resume|cancel`: the campaign as it now is (and, for a
 *   cancel, how many recipients it cancelled);
 * - `GET /admin/campaigns/:name/results[?format=json]`: the results of its conversations, CSV by
 *   default, each with the campaign and the recipient's row key.
 * `?location=` names the location when several are configured.
 */
export function createCampaignsRouter(options: CampaignsRouterOptions): Router {
  const { store, logger } = options;
  const router = Router();

  router.post('/admin/campaigns', campaignUploadRoute(options));

  router.get('/admin/campaigns', async (req, res) => {
    const query = queryOf(req, res);
    if (!query) return;
    const location = query.location === undefined ? undefined : locationOf(res, query.location);
    if (location === null) return;
    try {
      const campaigns = await listCampaigns(store, {
        location: location?.name,
        locations: options.locations.map((l) => l.name),
        all: query.all === 'true',
      });
      res.json({
        campaigns: campaigns.map(({ meta, total, recipients }) => ({
          ...campaignView(meta),
          total,
          recipients,
        })),
      });
    } catch (error) {
      answerCampaignError(res, error, logger, 'list');
    }
  });

  router.get('/admin/campaigns/:name', async (req, res) => {
    const ref = refOf(req, res);
    if (!ref) return;
    try {
      const { meta, ...report } = await campaignReport(store, ref);
      res.json({ campaign: campaignView(meta), ...report });
    } catch (error) {
      answerCampaignError(res, error, logger, 'show');
    }
  });

  for (const action of ['pause', 'resume', 'cancel'] as const satisfies CampaignAction[]) {
    router.post(`/admin/campaigns/:name/${action}`, async (req, res) => {
      const ref = refOf(req, res);
      if (!ref) return;
      if (ref.name.startsWith('_')) {
        res.status(400).json({
          error: `campaign '${ref.name}' holds the admin API's scheduled starts: cancel them one by one (DELETE /admin/conversations/scheduled/:key)`,
          field: 'name',
        });
        return;
      }
      try {
        const { meta, cancelled } = await changeCampaignStatus(store, ref, action, options.now());
        logger.info(
          { location: ref.location, campaign: ref.name, status: meta.status, cancelled },
          `admin campaigns: ${action}`,
        );
        res.json({
          campaign: campaignView(meta),
          ...(action === 'cancel' && { cancelled }),
        });
      } catch (error) {
        answerCampaignError(res, error, logger, action);
      }
    });
  }

  router.get('/admin/campaigns/:name/results', async (req, res) => {
    const ref = refOf(req, res);
    if (!ref) return;
    const format = (req.query.format as 'csv' | 'json' | undefined) ?? 'csv';
    let bot: string;
    try {
      bot = (await campaignReport(store, ref)).meta.bot;
    } catch (error) {
      answerCampaignError(res, error, logger, 'results');
      return;
    }
    res
      .status(200)
      .type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8');
    try {
      await writeResults(store, bot, res, { format, location: ref.location, campaign: ref.name });
      res.end();
    } catch (error) {
      // The answer has begun: only a cut stream can say it failed.
      logger.error({ err: error, campaign: ref.name }, 'admin campaigns: results cut short');
      res.destroy();
    }
  });

  function queryOf(req: Request, res: Response): z.infer<typeof querySchema> | undefined {
    const parsed = querySchema.safeParse(req.query);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    const field = issue?.path.map(String).join('.') ?? '';
    res
      .status(400)
      .json({ error: `${field || 'query'}: ${issue?.message ?? 'is invalid'}`, field });
    return undefined;
  }

  /** The named location, or null once a 400 is answered. */
  function locationOf(res: Response, name: string | undefined): LocationConfig | null {
    const location = requestLocation(options.locations, name);
    if (typeof location !== 'string') return location;
    res.status(400).json({ error: location, field: 'location' });
    return null;
  }

  /** The campaign a `/:name` route names, or undefined once a 400 is answered. */
  function refOf(req: Request, res: Response): { location: string; name: string } | undefined {
    const query = queryOf(req, res);
    if (!query) return undefined;
    const name = nameSchema.safeParse(req.params.name);
    if (!name.success) {
      res.status(400).json({ error: `name: ${name.error.issues[0]?.message}`, field: 'name' });
      return undefined;
    }
    const location = locationOf(res, query.location);
    if (location === null) return undefined;
    return { location: location.name, name: name.data };
  }

  return router;
}
