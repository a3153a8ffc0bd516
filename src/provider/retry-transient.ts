import { isTransientProviderError, ProviderRateLimitedError } from './provider-errors.ts';

/** How idempotent calls (GETs, the listing of `webhooks.ensure`) are retried. */
export interface RetryPolicy {
  /** Total tries, the first included; 1 disables retries. */
  attempts: number;
  /** Backoff before the second try; it doubles each time, with jitter. */
  baseDelayMs: number;
  /** Longest single wait. A `Retry-After` longer than this is not waited for: the error is thrown. */
  maxDelayMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  attempts: 3,
  baseDelayMs: 250,
  maxDelayMs: 10_000,
};

/** Time and randomness, injected so that tests never sleep and never depend on chance. */
export interface RetryTiming {
  sleep(ms: number): Promise<void>;
  /** A number in [0, 1), as `Math.random`. */
  random(): number;
}

/**
 * Runs `call`, retrying transient failures (5xx, network, time-out, 429) with jittered
 * exponential backoff, and waiting exactly `Retry-After` when the service gave one. Only for
 * calls that are safe to repeat: `POST /sms` never goes through here.
 *
 * @example
 * const groups = await retryTransient(() => transport.request(listGroups), defaultRetryPolicy, timing);
 */
export async function retryTransient<T>(
  call: () => Promise<T>,
  policy: RetryPolicy,
  timing: RetryTiming,
  onRetry?: (error: Error, attempt: number, delayMs: number) => void,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!isTransientProviderError(error) || attempt >= policy.attempts) throw error;
      const delay = retryDelay(error, attempt, policy, timing.random);
      if (delay === undefined) throw error;
      onRetry?.(error, attempt, delay);
      await timing.sleep(delay);
    }
  }
}

/**
 * The wait before try `attempt + 1`: `Retry-After` when given (undefined when it exceeds
 * `maxDelayMs`), otherwise "equal jitter" backoff, between half and all of base × 2^(attempt-1),
 * so that clients restarted together do not retry in step.
 */
export function retryDelay(
  error: Error,
  attempt: number,
  policy: RetryPolicy,
  random: () => number,
): number | undefined {
  if (error instanceof ProviderRateLimitedError && error.retryAfterMs !== undefined) {
    return error.retryAfterMs <= policy.maxDelayMs ? error.retryAfterMs : undefined;
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
