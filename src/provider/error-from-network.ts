import { type ProviderCallContext, ProviderUnavailableError } from './provider-errors.ts';

/**
 * Failures that happen before the request can leave this machine: no connection was made, so
 * the service cannot have acted. Everything else (reset, time-out waiting for the answer, a
 * body cut short) happens after the request may have been read, and counts as "may have reached".
 */
const neverSentCodes = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
]);

/**
 * Turns an error thrown by undici (or by Node's socket underneath) into a
 * `ProviderUnavailableError` that says whether the service may have received the request.
 * An unknown error is assumed to have reached it: for `POST /sms` a false "may have" only costs
 * a check, a false "did not" costs a duplicate message.
 */
export function errorFromNetwork(
  cause: unknown,
  call: ProviderCallContext & { origin: string },
): ProviderUnavailableError {
  const code = errorCode(cause);
  const reason = `${code ?? 'error'}: ${cause instanceof Error ? cause.message : String(cause)}`;
  const { origin, ...context } = call;
  const where = `location '${call.location}': ${call.method} ${call.path}`;
  if (code !== undefined && neverSentCodes.has(code)) {
    return new ProviderUnavailableError({
      ...context,
      cause,
      mayHaveReachedService: false,
      message: `${where}: cannot reach the messaging service at ${origin} (${reason}); the request was not sent. Check the provider URL and the network.`,
    });
  }
  return new ProviderUnavailableError({
    ...context,
    cause,
    mayHaveReachedService: true,
    message: `${where}: the exchange with the messaging service at ${origin} failed after the request was sent (${reason}); the service may have received it`,
  });
}

/** The error code, looking inside the AggregateError Node throws when every address failed. */
function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, errors } = error as { code?: unknown; errors?: unknown };
  if (typeof code === 'string') return code;
  if (Array.isArray(errors)) return errorCode(errors[0]);
  return undefined;
}
