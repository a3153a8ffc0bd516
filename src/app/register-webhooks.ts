import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../observability/logger.ts';
import type { MessagingClient } from '../provider/messaging-client.ts';
import type { Store } from '../store/store.ts';
import { StoreUnavailableError } from '../store/store-errors.ts';
import { storeOutage } from '../store/store-outage.ts';
import type { AppConfig } from './config.ts';
import { webhookUrl } from './webhook-url.ts';

/** The wait before registration attempt `attempt + 1` while the store is down: 1 s, doubled, at most 30 s. */
const retryDelayMs = (attempt: number) => Math.min(1_000 * 2 ** (attempt - 1), 30_000);

/**
 * Registers each location's webhook URL for both event kinds; idempotent across restarts. The
 * requests wait for the location's shared rate limiter, which lives in the store: while the
 * store is down, each registration is tried again with a backoff (the outage is logged once, by
 * `storeOutage`) instead of failing the start. Any other failure (a refused key pair, a bad URL)
 * rejects. `signal` (a stop during start) ends the waiting: what is left is not registered.
 */
export async function registerWebhooks(
  config: AppConfig,
  clients: Map<string, MessagingClient>,
  logger: Logger,
  options: { store: Store; signal?: AbortSignal },
): Promise<void> {
  if (!config.publicUrl) return;
  const { signal } = options;
  for (const location of config.locations) {
    const client = clients.get(location.name);
    if (!client || !location.webhookSecret) continue;
    const url = webhookUrl(config.publicUrl, location.name, location.webhookSecret);
    for (let attempt = 1; ; attempt++) {
      try {
        const ensured = client.webhooks.ensure(url, ['sms.status', 'sms.reply']);
        if ((await untilAborted(ensured, signal)) === aborted) return;
        break;
      } catch (error) {
        if (!(error instanceof StoreUnavailableError)) throw error;
        storeOutage(options.store).failed(
          logger,
          error,
          'webhook not registered yet: the store is down; trying again',
          { location: location.name },
        );
        const waited = await sleep(retryDelayMs(attempt), undefined, { signal }).catch(
          () => aborted,
        );
        if (waited === aborted) return;
      }
    }
    logger.info({ location: location.name }, 'webhook registered for sms.status and sms.reply');
  }
}

const aborted = Symbol('aborted');

/** `work`'s outcome, or `aborted` as soon as `signal` is (`work` then goes on unheeded). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined) {
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.resolve(aborted);
  }
  return new Promise<T | typeof aborted>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => undefined);
      resolve(aborted);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
