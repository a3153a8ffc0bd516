import { type Dispatcher, request } from 'undici';
import { BlockedAddressError } from '../provider/address-guard.ts';
import type { Notification } from '../provider/schemas/notification.ts';
import type { DeliveryOutcome } from './delivery-log.ts';
import { cancelled, type PendingWork } from './pending-work.ts';

export interface AttemptResult {
  outcome: Exclude<DeliveryOutcome, 'injected_failure'>;
  httpStatus?: number;
  error?: string;
}

export interface PostOptions {
  work: PendingWork;
  dispatcher: Dispatcher;
  /** Real (already scaled) ms the receiver has to answer with a 2xx, body included. */
  deadlineMs: number;
  /** The `hang` webhook fault: send, ignore the answer, and time out. */
  ignoreAnswer: boolean;
}

const timedOut = Symbol('webhook answer deadline passed');

/**
 * One delivery attempt: POSTs the envelope and classifies the answer. Returns 'cancelled' when
 * the emulator was reset or closed meanwhile, since such an attempt is neither a success nor a
 * failure of the receiver.
 */
export async function postNotification(
  url: string,
  notification: Notification,
  options: PostOptions,
): Promise<AttemptResult | 'cancelled'> {
  const pending = options.work.request();
  const deadline = setTimeout(() => pending.abort(timedOut), options.deadlineMs);
  try {
    const answer = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(notification),
      signal: pending.signal,
      dispatcher: options.dispatcher,
    });
    await answer.body.dump();
    if (options.ignoreAnswer) {
      await aborted(pending.signal);
      return pending.signal.reason === cancelled ? 'cancelled' : { outcome: 'timeout' };
    }
    const ok = answer.statusCode >= 200 && answer.statusCode < 300;
    return { outcome: ok ? 'ok' : 'http_error', httpStatus: answer.statusCode };
  } catch (error) {
    if (pending.signal.reason === cancelled) return 'cancelled';
    if (pending.signal.reason === timedOut) return { outcome: 'timeout' };
    return { outcome: 'network_error', error: describe(error) };
  } finally {
    clearTimeout(deadline);
    pending.release();
  }
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

function describe(error: unknown): string {
  if (error instanceof BlockedAddressError) {
    return `${error.message}; the emulator listens beyond loopback: start it with --allow-private-webhooks (allowPrivateWebhooks) to call such addresses`;
  }
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}
