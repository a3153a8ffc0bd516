import { readdirSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { type ErrorRequestHandler, Router } from 'express';
import type { BotRegistry } from '../bot/bot-registry.ts';
import { type Bot, exampleInputAt } from '../bot/define-bot.ts';
import type { EmulatorContext } from '../emulator/emulator-context.ts';
import type { StoredSms } from '../emulator/message-store.ts';
import { nextFailureReasons } from '../emulator/next-failures.ts';
import type { Logger } from '../observability/logger.ts';
import type { Reply } from '../provider/schemas/reply.ts';
import { layoutStatechart, type Statechart } from '../statechart/layout-statechart.ts';
import type { Store } from '../store/store.ts';
import { clockRoutes } from './dev-phone/clock-routes.ts';
import { DevPhoneJournal } from './dev-phone/dev-phone-journal.ts';
import type { DevReceiver } from './dev-phone/dev-receiver.ts';
import { phoneActionRoutes } from './dev-phone/phone-action-routes.ts';
import { receiverRoutes } from './dev-phone/receiver-routes.ts';
import { formatPhone, toSmsView } from './dev-phone/sms-view.ts';
import { watchConversations } from './dev-phone/watch-conversations.ts';

const pageDir = new URL('./dev-phone/page/', import.meta.url);
const types: Record<string, string> = { '.html': 'html', '.css': 'css', '.js': 'js' };
/** The page's files, read once: plain HTML, CSS and ES modules, no build step. */
const assets = new Map(
  readdirSync(pageDir)
    .filter((name) => extname(name) in types)
    .map((name) => [
      name,
      { type: types[extname(name)]!, text: readFileSync(new URL(name, pageDir), 'utf8') },
    ]),
);

/** A file of `bots/` that failed to load (the previous version of its bots keeps serving). */
export interface BotLoadError {
  file: string;
  message: string;
}

/** The bots `dev` serves now, which a reload may change. */
export interface DevBots {
  registry(): BotRegistry;
  errors(): BotLoadError[];
  onChange?(listener: (event: { reloaded: string[]; errors: BotLoadError[] }) => void): () => void;
}

export interface DevRouterOptions {
  store: Store;
  location: string;
  /** The dev clock; `advance` moves it forward and due timers fire (the page's clock buttons). */
  clock: { now(): number; advance?(ms: number): void };
  /** The current bots (hot reload); `registry` alone serves a fixed set. */
  bots?: DevBots;
  registry?: BotRegistry;
  /** The embedded emulator: without it (a real provider configured) the phone cannot chat. */
  emulator?: EmulatorContext;
  /** Country of numbers typed in national form (`06 12 34 56 78`), ISO 3166 alpha-2. Default `FR`. */
  defaultCountry?: string | undefined;
  logger?: Logger;
  /** The dev receiver of the locations' events (`/dev/receiver`); none: the page shows no events. */
  receiver?: DevReceiver;
}

/**
 * The dev phone: `GET /dev` (the page), `GET /dev/events` (its live updates over Server-Sent
 * Events) and a JSON API under `/dev` to read a phone's thread and conversation, start a bot,
 * answer as the person, broadcast from the short code, fail the next delivery, move the clock
 * and reset a number; and the dev receiver (`/dev/receiver`), which takes every event the bots
 * send and shows them live. Everything the page shows comes from here, so a reload loses nothing.
 * Dev only: `replyflow dev` mounts it, `start`, `web` and `worker` never do.
 */
export function createDevRouter(options: DevRouterOptions): Router & { close(): void } {
  const { store, location, emulator } = options;
  const bots: DevBots = options.bots ?? {
    registry: () =>
      options.registry ?? { bots: new Map(), byKeyword: new Map(), fallback: undefined },
    errors: () => [],
  };
  const journal = new DevPhoneJournal();
  const watch = watchConversations({
    store,
    journal,
    location,
    registry: () => bots.registry(),
    logger: options.logger,
  });
  const charts = new Map<string, Promise<Statechart>>();
  const armedFor = (phone: string) =>
    emulator?.nextFailures.list().find((a) => a.phone === phone)?.reasons ?? [];
  const stops: Array<() => void> = [() => watch.stop(), () => journal.closeAll()];

  stops.push(
    emulator?.events.listen((event, data) => {
      const at = options.clock.now();
      if (event === 'sms.created' || event === 'sms.status') {
        const sms = data as StoredSms;
        if (sms.location !== location) return;
        // Thread entries go through the watch, in order, so a state change the engine
        // committed before sending its answer is noted above that answer.
        const view = toSmsView(sms);
        // The failures still armed for the phone: one the SMS took is no longer, and the page
        // clears its label.
        const armed = () => armedFor(sms.to);
        if (event === 'sms.created') {
          watch.serially(sms.to, () =>
            journal.append(
              { kind: 'sms', phone: sms.to, at, smsId: sms.id },
              { sms: view, armed: armed() },
            ),
          );
        } else {
          watch.serially(sms.to, () =>
            journal.publish('sms', { phone: sms.to, sms: view, armed: armed() }),
          );
        }
      } else if (event === 'reply') {
        const reply = data as Reply & { location: string };
        if (reply.location !== location) return;
        watch.serially(reply.from, () =>
          journal.append({ kind: 'reply', phone: reply.from, at, body: reply.body }),
        );
      }
    }) ?? (() => {}),
  );
  stops.push(
    options.receiver?.onChange((entry) => journal.publish('webhook', entry)) ?? (() => {}),
  );
  stops.push(
    bots.onChange?.((change) => {
      journal.publish('bots', { ...botsState(), reloaded: change.reloaded });
      // A running conversation of a bot whose machine changed learns it at its next event.
      for (const [phone, view] of watch.known()) {
        const loaded = bots.registry().bots.get(view.bot)?.version;
        if (view.status !== 'active' || !loaded || loaded === view.version) continue;
        journal.append({
          kind: 'notice',
          phone,
          at: options.clock.now(),
          tone: 'warn',
          text: `${view.bot} reloaded with a changed machine: this conversation is migrated at its next message, or ends if the bot has no migrate`,
        });
      }
      watch.poke();
    }) ?? (() => {}),
  );

  /** The bot's example input by the dev clock (an input with a date stays ahead of it). */
  const exampleOf = (bot: Bot) => {
    try {
      return { exampleInput: exampleInputAt(bot, new Date(options.clock.now())) };
    } catch (error) {
      return { exampleInputError: `${bot.id}'s exampleInput threw: ${(error as Error).message}` };
    }
  };
  const botsState = () => ({
    bots: [...bots.registry().bots.values()].map((bot) => ({
      id: bot.id,
      version: bot.version,
      keywords: bot.keywords,
      fallback: !!bot.fallback,
      ...exampleOf(bot),
    })),
    errors: bots.errors(),
  });

  const router = Router() as Router & { close(): void };
  router.close = () => {
    for (const stop of stops) stop();
  };
  router.get('/dev', (_req, res) => {
    res.type('html').send(assets.get('index.html')!.text);
  });
  router.get('/dev/assets/:name', (req, res) => {
    const asset = assets.get(req.params.name);
    if (!asset) res.status(404).json({ error: `no dev phone asset '${req.params.name}'` });
    else res.type(asset.type).send(asset.text);
  });
  router.get('/dev/events', (req, res) => {
    const last = Number(req.get('last-event-id') ?? req.query.after);
    journal.subscribe(res, Number.isInteger(last) && last >= 0 ? last : undefined);
  });
  router.get('/dev/state', (_req, res) => {
    res.json({
      seq: journal.seq,
      now: options.clock.now(),
      canAdvance: typeof options.clock.advance === 'function',
      emulated: !!emulator,
      shortCode: emulator?.config.shortCode,
      location,
      failureReasons: nextFailureReasons,
      receiver: !!options.receiver,
      phones: journal.phones().map((phone) => ({ phone, display: formatPhone(phone) })),
      ...botsState(),
    });
  });
  router.get('/dev/bots', (_req, res) => {
    res.json(botsState().bots);
  });
  router.get('/dev/bots/:id/statechart', async (req, res) => {
    const bot = bots.registry().bots.get(req.params.id);
    if (!bot) {
      res.status(404).json({ error: `no bot '${req.params.id}' is loaded` });
      return;
    }
    const key = `${bot.id}@${bot.version}`;
    if (!charts.has(key)) charts.set(key, layoutStatechart(bot.machine));
    res.json({ bot: bot.id, version: bot.version, ...(await charts.get(key)!) });
  });
  // Before the phone's routes, whose JSON parser would take the body it verifies raw.
  if (options.receiver) router.use(receiverRoutes(options.receiver, options.logger));
  router.use(phoneActionRoutes({ ...options, bots, journal, watch }));
  router.use(clockRoutes({ clock: options.clock, journal, watch }));
  // JSON errors for the page, never an HTML stack: a body that is not JSON, or a store that is down.
  router.use('/dev', ((error, _req, res, _next) => {
    const status = (error as { status?: number }).status ?? 500;
    if (status >= 500) options.logger?.error({ err: error }, 'dev phone request failed');
    const notJson = (error as { type?: string }).type === 'entity.parse.failed';
    res.status(status).json({
      error: notJson
        ? `the body is not JSON: ${(error as Error).message}`
        : (error as Error).message,
    });
  }) as ErrorRequestHandler);
  return router;
}
