import { parseRetryAfter } from './parse-retry-after.ts';
import {
  ProviderBadResponseError,
  type ProviderCallContext,
  type ProviderError,
  ProviderRateLimitedError,
  ProviderRejectedError,
  ProviderUnauthorizedError,
  ProviderUnavailableError,
} from './provider-errors.ts';
import { apiErrorBodySchema } from './schemas/api-error.ts';

export interface FailedResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body, parsed as JSON when it was JSON, else the raw text. */
  body: unknown;
}

/**
 * Turns a non-2xx answer into the error of its layer (DESIGN §4: 401/403 unauthorized, 429 rate
 * limited, other 4xx permanent, 5xx transient). Each message names the location, the call and
 * what to do.
 */
export function errorFromResponse(
  response: FailedResponse,
  call: ProviderCallContext,
  nowMs: number,
): ProviderError {
  const { status, body } = response;
  const where = `location '${call.location}': ${call.method} ${call.path} answered HTTP ${status}`;
  const detail = describeErrorBody(body);
  if (status === 401 || status === 403) {
    return new ProviderUnauthorizedError({
      ...call,
      status,
      body,
      message:
        `${where} (${detail}): the messaging service refused the API key pair of location '${call.location}'. ` +
        `Check that location's key id and secret (REPLYFLOW_API_KEY_ID / REPLYFLOW_API_KEY_SECRET, or apiKeyId / apiKeySecret in REPLYFLOW_CONFIG); ` +
        'each key pair works for exactly one location.',
    });
  }
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(response.headers['retry-after'], nowMs);
    return new ProviderRateLimitedError({
      ...call,
      status,
      retryAfterMs,
      message:
        `${where}: the messaging service is rate-limiting this key pair; ` +
        (retryAfterMs === undefined ? 'no Retry-After given' : `retry after ${retryAfterMs} ms`) +
        `. If it keeps happening, lower rateLimitPerSecond for location '${call.location}'.`,
    });
  }
  if (status >= 400 && status < 500) {
    return new ProviderRejectedError({
      ...call,
      status,
      body,
      message: `${where}: the messaging service rejected the request (${detail}); fix the request, retrying it will not help`,
    });
  }
  if (status >= 500) {
    return new ProviderUnavailableError({
      ...call,
      status,
      mayHaveReachedService: true,
      message: `${where} (${detail}): the messaging service failed; it may have received the request, retry later`,
    });
  }
  return new ProviderBadResponseError({
    ...call,
    status,
    body,
    issues: [{ path: '', message: `unexpected HTTP status ${status}` }],
    message: `${where}, which the client does not expect (redirects are not followed); check the base URL of location '${call.location}'`,
  });
}

/** The service's own words when the body has the documented error shape, else a short excerpt. */
function describeErrorBody(body: unknown): string {
  const parsed = apiErrorBodySchema.safeParse(body);
  if (parsed.success) {
    const { code, message, field } = parsed.data.error;
    return `${code}: ${message}${field ? ` [field ${field}]` : ''}`;
  }
  if (body === undefined || body === '') return 'empty body';
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
