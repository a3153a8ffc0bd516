import type { Logger } from '../observability/logger.ts';
import { StoreUnavailableError } from './store-errors.ts';

/**
 * What a process knows of an outage of one store, shared by everything that calls it: the lanes
 * of the worker and of the sender, their safety sweeps, the scheduler, the webhook, the webhook
 * registration and the connection itself. An outage is then logged once, by whoever meets it
 * first, instead of by every lane at every retry (80 stack traces in the first seconds of a
 * `start` whose Redis was unreachable).
 */
export interface StoreOutage {
  /**
   * A store call failed. A `StoreUnavailableError` is logged at `warn`, with its code and
   * message and without its stack, when it starts an outage; at `debug` while one lasts. Any
   * other error is not an outage (a bug, a refused call): it is logged at `error` with its stack,
   * every time.
   */
  failed(logger: Logger, error: unknown, message: string, fields?: Record<string, unknown>): void;
  /** A store call answered: an outage, if one was on, is over, and that is logged once. */
  answered(logger: Logger): void;
  /** An outage is logged elsewhere (the connection logs each of its attempts): the failures it causes go to `debug`. */
  reported(): void;
}

const outages = new WeakMap<object, StoreOutage>();

/**
 * The outage state of `store`: one per store object, so every part of the process that uses
 * that store shares it without being handed it.
 *
 * @example
 * storeOutage(store).failed(logger, error, 'queue lane failed; backing off', { queue: 'inbox' });
 */
export function storeOutage(store: object): StoreOutage {
  let outage = outages.get(store);
  if (!outage) {
    outage = createStoreOutage();
    outages.set(store, outage);
  }
  return outage;
}

function createStoreOutage(): StoreOutage {
  let down = false;
  return {
    failed(logger, error, message, fields = {}) {
      if (!(error instanceof StoreUnavailableError)) {
        logger.error({ err: error, ...fields }, message);
        return;
      }
      const line = `${message}: ${error.message}`;
      if (down) logger.debug({ code: error.code, ...fields }, line);
      else logger.warn({ code: error.code, ...fields }, line);
      down = true;
    },
    answered(logger) {
      if (!down) return;
      down = false;
      logger.info('the store answers again');
    },
    reported() {
      down = true;
    },
  };
}
