/**
 * What the sender needs from the messaging service: send one SMS from the short code for a
 * location. `app/` adapts the provider client to it; tests may pass the real client too.
 */
export interface SmsGateway {
  /**
   * Sends one SMS from the short code. `beforeRequest` runs once the request has its rate-limit
   * slot, immediately before it goes out; if it rejects, nothing is sent and `send` rejects
   * with its error. `bulk`: a message the bot sent on its own (`botInitiated`), which waits for
   * its slot behind answers to people.
   */
  send(
    location: string,
    message: { to: string; body: string },
    options?: { beforeRequest?: () => Promise<void>; bulk?: boolean },
  ): Promise<{ id: string }>;
  /** One request that tells whether the service answers (resolves) or not (rejects). */
  ping?(location: string): Promise<void>;
  /** Adds or updates a contact in a group (`POST /groups/{group}/contacts`); `bulk` as for `send`. */
  updateContact?(
    location: string,
    group: number,
    fields: Record<string, unknown>,
    options?: { bulk?: boolean },
  ): Promise<void>;
}

export type SendFailure =
  | {
      kind: 'transient';
      retryAfterMs: number | undefined;
      reason: string;
      /**
       * The request may have reached the service and been accepted (a 5xx, a time-out, a network
       * error after the request was written): sending again may send it twice (DESIGN §2.4).
       */
      mayHaveBeenSent: boolean;
    }
  | { kind: 'permanent'; retryAfterMs?: undefined; reason: string; mayHaveBeenSent?: false };

const permanent = new Set([
  'CONFIG_INVALID',
  'PROVIDER_REJECTED',
  'INVALID_PHONE_NUMBER',
  'NOT_A_MOBILE_NUMBER',
  'INVALID_SENDER',
  'MISSING_PARAMETER',
  'INVALID_CONTACT',
]);

/**
 * Sorts a send error by what to do about it. The service's 4xx answers and local refusals
 * are permanent: sending again cannot help. Everything else (5xx, network, time-out, 429,
 * and 401/403, which an operator can fix by correcting the key pair) is retried. An error that
 * says it may have reached the service (`mayHaveReachedService`, the provider client's flag),
 * and any error that does not say, is a send in doubt: the sender looks for its status before
 * sending it again. A `STORE_UNAVAILABLE` is not: the store fails a send before its request
 * (the shared rate limiter's Redis), never after it.
 */
export function classifySendError(error: unknown): SendFailure {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (typeof code === 'string' && permanent.has(code)) {
    return { kind: 'permanent', reason: `${code}: ${message}` };
  }
  const retryAfterMs = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  const reached = (error as { mayHaveReachedService?: unknown } | null)?.mayHaveReachedService;
  return {
    kind: 'transient',
    retryAfterMs: typeof retryAfterMs === 'number' ? retryAfterMs : undefined,
    reason: typeof code === 'string' ? `${code}: ${message}` : message,
    mayHaveBeenSent: reached !== false && code !== 'STORE_UNAVAILABLE',
  };
}
