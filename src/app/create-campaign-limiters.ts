import type { SharedLimiter } from '../outbox/shared-limiter.ts';
import { campaignId } from '../store/campaign-id.ts';
import type { CampaignMeta } from '../store/campaign-records.ts';
import { createMemorySendLimiter } from '../store/memory/create-memory-send-limiter.ts';
import { createRedisSendLimiter } from '../store/redis/create-redis-send-limiter.ts';
import { storeKeys } from '../store/redis/keys.ts';
import type { RedisConnection } from '../store/redis/redis-store-context.ts';

/**
 * Each campaign's firing rate: on Redis one schedule per campaign shared by every process's
 * runner, in memory this process's own. Made once per campaign and rate.
 */
export function createCampaignLimiters(
  redis: RedisConnection | undefined,
  prefix: string,
): (meta: CampaignMeta) => SharedLimiter {
  const made = new Map<string, { rate: number; limiter: SharedLimiter }>();
  return (meta) => {
    const id = campaignId(meta);
    const known = made.get(id);
    if (known && known.rate === meta.ratePerSecond) return known.limiter;
    const limiter = redis
      ? createRedisSendLimiter({
          redis,
          location: meta.location,
          perSecond: meta.ratePerSecond,
          keys: storeKeys(prefix, 1).campaignSchedule(meta.location, meta.name),
        })
      : createMemorySendLimiter(meta.ratePerSecond);
    made.set(id, { rate: meta.ratePerSecond, limiter });
    return limiter;
  };
}
