import { readFileSync } from 'node:fs';
import express, { Router } from 'express';
import { z } from 'zod';
import type { BotRegistry } from '../bot/bot-registry.ts';
import { startConversation } from '../conversation/start-conversation.ts';
import type { EmulatorContext } from '../emulator/emulator-context.ts';
import type { Logger } from '../observability/logger.ts';
import { normalizePhone } from '../provider/normalize-phone.ts';
import type { Clock } from '../scheduler/clock.ts';
import type { Store } from '../store/store.ts';

const page = readFileSync(new URL('./dev-phone.html', import.meta.url), 'utf8');

const startSchema = z.object({
  bot: z.string().min(1),
  phone: z.string().min(1),
  input: z.unknown().optional(),
});

/**
 * Development routes: `GET /dev`, the dev phone page; `GET /dev/bots`; and
 * `POST /dev/conversations {bot, phone, input}`, which starts a bot's conversation (the way a
 * campaign will), since the service only forwards replies to messages sent from the short code.
 */
export function createDevRouter(options: {
  store: Store;
  registry: BotRegistry;
  /** Dev's clock can be moved ahead (`advance`); due timers then fire. */
  clock: Clock & { advance?(ms: number): void };
  location: string;
  /** The embedded emulator, when dev runs one (the dev phone's branch uses it). */
  emulator?: EmulatorContext;
  /** Country of numbers typed in national form. */
  defaultCountry?: string | undefined;
  logger?: Logger;
  /** The live bots of `replyflow dev`: the current registry, load errors, and reloads. */
  bots?: {
    registry(): BotRegistry;
    errors(): Array<{ file: string; message: string }>;
    onChange?(
      listener: (event: {
        reloaded: string[];
        errors: Array<{ file: string; message: string }>;
      }) => void,
    ): () => void;
  };
}): Router {
  const router = Router();
  router.get('/dev', (_req, res) => {
    res.type('html').send(page);
  });
  router.get('/dev/bots', (_req, res) => {
    res.json(
      [...options.registry.bots.values()].map((bot) => ({
        id: bot.id,
        keywords: bot.keywords,
        fallback: !!bot.fallback,
      })),
    );
  });
  router.post('/dev/conversations', express.json(), async (req, res) => {
    const parsed = startSchema.safeParse(req.body);
    if (!parsed.success) {
      res.status(400).json({
        error: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
      });
      return;
    }
    if (!options.registry.bots.has(parsed.data.bot)) {
      res.status(404).json({
        error: `no bot '${parsed.data.bot}'; loaded: ${[...options.registry.bots.keys()].join(', ')}`,
      });
      return;
    }
    let phone: string;
    try {
      phone = normalizePhone(parsed.data.phone, { defaultCountry: 'FR' });
    } catch (error) {
      res.status(400).json({ error: (error as Error).message });
      return;
    }
    const id = await startConversation(options.store, {
      location: options.location,
      phone,
      botId: parsed.data.bot,
      input: parsed.data.input,
      now: options.clock.now(),
    });
    res.status(202).json({ id, phone });
  });
  return router;
}
