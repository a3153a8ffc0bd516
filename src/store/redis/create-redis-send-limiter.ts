import { limiterFromSchedule } from '../send-schedule.ts';
import { storeKeys } from './keys.ts';
import { type RedisConnection, withStoreErrors } from './redis-store-context.ts';
import { defineStoreScripts } from './store-scripts.ts';

/**
 * The send limiter of one location, shared by every process on this Redis: one schedule of
 * slots `1 / perSecond` apart (`reserve-send-slot-2.lua`), so all processes together keep the
 * rate, and a 429's pause holds them all back. A fixed-window counter would let up to twice the
 * rate through across a window's edge; reserved slots never do. At a high rate one round trip
 * reserves a batch of slots that this process spends itself (`limiterFromSchedule`).
 */
export function createRedisSendLimiter(options: {
  redis: RedisConnection;
  prefix?: string;
  location: string;
  perSecond: number;
  /** Another schedule than the location's sends (a campaign's firing: `storeKeys().campaignSchedule`). */
  keys?: { nextSlot: string; pausedUntil: string };
}) {
  const keys = options.keys ?? storeKeys(options.prefix ?? 'rf:', 1).sendSchedule(options.location);
  const scripts = defineStoreScripts(options.redis);
  const run = async (mode: string, ...args: number[]) =>
    Number(
      await withStoreErrors('reserveSendSlot', () =>
        scripts.run('reserve-send-slot', [keys.nextSlot, keys.pausedUntil], [mode, ...args]),
      ),
    );
  return limiterFromSchedule(
    {
      reserve: (count, interval) => run('reserve', interval, count),
      pausedFor: () => run('check', 0),
      pause: async (ms) => {
        await run('pause', ms);
      },
    },
    { perSecond: options.perSecond },
  );
}
