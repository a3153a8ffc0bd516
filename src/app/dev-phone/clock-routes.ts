import express, { Router } from 'express';
import { z } from 'zod';
import { parseDuration } from '../../bot/parse-duration.ts';
import type { DevRouterOptions } from '../create-dev-router.ts';
import type { DevPhoneJournal } from './dev-phone-journal.ts';
import { parse } from './parse-body.ts';
import type { ConversationWatch } from './watch-conversations.ts';

const advanceSchema = z.object({ by: z.union([z.string(), z.number()]) });
/** Beyond a year the clock is more likely a typo than a test. */
const maxAdvanceMs = 366 * 86_400_000;

/**
 * `POST /dev/clock/advance { by }`: moves the dev clock forward by a duration (`'24h'`, `'90m'`)
 * or a number of ms; the clock fires the timers that came due. Each thread notes the move.
 */
export function clockRoutes(
  deps: Pick<DevRouterOptions, 'clock'> & { journal: DevPhoneJournal; watch: ConversationWatch },
): Router {
  const { clock, journal, watch } = deps;
  const router = Router();
  router.post('/dev/clock/advance', express.json(), (req, res) => {
    const parsed = parse(advanceSchema, req.body, res);
    if (!parsed) return;
    const ms = typeof parsed.by === 'number' ? parsed.by : parseDuration(parsed.by);
    if (ms === undefined || !Number.isFinite(ms) || ms <= 0 || ms > maxAdvanceMs) {
      res.status(400).json({
        error: `cannot move the clock by '${parsed.by}': give a duration such as 1h, 24h, 3d or 90m (at most 366d)`,
      });
      return;
    }
    if (!clock.advance) {
      res
        .status(409)
        .json({ error: 'this server runs on the system clock, which cannot be moved' });
      return;
    }
    clock.advance(ms);
    const now = clock.now();
    journal.publish('clock', { now, by: ms });
    const by = typeof parsed.by === 'number' ? `${parsed.by} ms` : parsed.by;
    for (const phone of journal.phones()) {
      journal.append({
        kind: 'notice',
        phone,
        at: now,
        text: `clock moved forward ${by}`,
        tone: 'info',
      });
    }
    watch.poke();
    res.json({ now });
  });

  return router;
}
