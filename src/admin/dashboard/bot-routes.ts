import { type Request, type Response, Router } from 'express';
import type { LocationConfig } from '../../app/config.ts';
import type { BotRegistry } from '../../bot/bot-registry.ts';
import type { Bot } from '../../bot/define-bot.ts';
import { leaves } from '../../conversation/count-activity.ts';
import { maskPhone } from '../../observability/mask-phone.ts';
import { layoutStatechart, type Statechart } from '../../statechart/layout-statechart.ts';
import { readBotFunnel } from '../../stats/read-stats.ts';
import type { Store } from '../../store/store.ts';
import type { ConversationRefs } from './conversation-refs.ts';
import { inStateQuerySchema } from './in-state-query.ts';
import { listConversationsInState } from './list-conversations-in-state.ts';
import { mapTransitions } from './map-funnel.ts';
import type { AdminAccess } from './require-admin-access.ts';
import { sendFile } from './serve-page.ts';

export interface BotRoutesOptions {
  store: Store;
  registry: BotRegistry;
  locations: readonly LocationConfig[];
  refs: ConversationRefs;
  csrfOf(access: AdminAccess | undefined): string;
  now(): number;
  /** Records looked at, at most, by one answer of the conversations in a state. Default 20,000. */
  scanBudget?: number;
}

/**
 * A bot's page, `GET /admin/bots/:location/:bot` (`page/bot.html`), and what it reads: the
 * statechart laid out (cached per bot version), the live funnel every 5 s with its transitions
 * placed on the chart's edges (`map-funnel.ts`), and the conversations in a state (phones
 * masked, each with the sealed reference of its page, `conversation-refs.ts`).
 */
export function botRoutes(options: BotRoutesOptions): Router {
  const { store, refs } = options;
  const router = Router();
  const charts = new Map<string, Promise<Statechart>>();
  const chartOf = (bot: Bot) => {
    const key = `${bot.id}@${bot.version}`;
    if (!charts.has(key)) charts.set(key, layoutStatechart(bot.machine));
    return charts.get(key)!;
  };

  router.get('/admin/bots/:location/:bot', (_req, res) => {
    sendFile(res, 'bot.html', { csrf: options.csrfOf(res.locals.adminAccess) });
  });

  router.get('/admin/api/bots/:location/:bot/statechart', async (req, res) => {
    const bot = botOf(req, res);
    if (!bot) return;
    res.json({ bot: bot.id, version: bot.version, ...(await chartOf(bot)) });
  });

  router.get('/admin/api/bots/:location/:bot/funnel', async (req, res) => {
    const bot = botOf(req, res);
    if (!bot) return;
    const [funnel, chart] = await Promise.all([
      readBotFunnel(store, req.params.location as string, bot.id, options.now()),
      chartOf(bot),
    ]);
    const on = (period: 'today' | 'week' | 'total') =>
      mapTransitions(chart.edges, funnel.transitions[period]);
    const mapped = { today: on('today'), week: on('week'), total: on('total') };
    res.set('cache-control', 'no-store').json({
      ...funnel,
      version: bot.version,
      edges: {
        today: mapped.today.edges,
        week: mapped.week.edges,
        total: mapped.total.edges,
      },
      other: {
        today: mapped.today.other,
        week: mapped.week.other,
        total: mapped.total.other,
      },
    });
  });

  router.get('/admin/api/bots/:location/:bot/conversations', async (req, res) => {
    const bot = botOf(req, res);
    if (!bot) return;
    const parsed = inStateQuerySchema.safeParse(req.query);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.map(String).join('.') ?? '';
      res
        .status(400)
        .json({ error: `${field || 'query'}: ${issue?.message ?? 'is invalid'}`, field });
      return;
    }
    const location = req.params.location as string;
    const page = await listConversationsInState(store, {
      location,
      bot: bot.id,
      limit: parsed.data.limit,
      budget: options.scanBudget ?? 20_000,
      ...(parsed.data.state !== undefined && { state: parsed.data.state }),
      ...(parsed.data.cursor !== undefined && { cursor: parsed.data.cursor }),
    });
    res.set('cache-control', 'no-store').json({
      conversations: page.records.map((record) => ({
        ref: refs.seal({ location, phone: record.phone }),
        phone: maskPhone(record.phone),
        state: leaves(record),
        startedAt: record.startedAt,
        updatedAt: record.updatedAt,
      })),
      cursor: page.cursor ?? null,
      partial: page.partial,
    });
  });

  /** The bot a request names in a configured location, or undefined once a 404 is answered. */
  function botOf(req: Request, res: Response): Bot | undefined {
    const { location, bot } = req.params as { location: string; bot: string };
    if (!options.locations.some((l) => l.name === location)) {
      const names = options.locations.map((l) => l.name).join(', ') || '(none)';
      res.status(404).json({ error: `unknown location '${location}'; configured: ${names}` });
      return undefined;
    }
    const found = options.registry.bots.get(bot);
    if (!found) res.status(404).json({ error: `no bot '${bot}' is loaded` });
    return found;
  }

  return router;
}
