import type { z } from 'zod';
import {
  type BadResponseIssue,
  ProviderBadResponseError,
  type ProviderCallContext,
} from './provider-errors.ts';

/**
 * Reads a response body as JSON: empty is `undefined` (a 204 from DELETE), anything else must
 * parse. An error answer that is not JSON (a proxy's HTML page) is kept as its raw text.
 */
export function parseResponseBody(text: string): { json: boolean; value: unknown } {
  if (text.trim() === '') return { json: true, value: undefined };
  try {
    return { json: true, value: JSON.parse(text) };
  } catch {
    // Not JSON: the caller reports the raw text, as a bad response or inside an error.
    return { json: false, value: text };
  }
}

/**
 * Checks a 2xx body against the schema of its endpoint. A mismatch becomes a
 * `ProviderBadResponseError` naming the path of every bad field (`[1].createdAt`), here at the
 * edge, rather than an `undefined` surfacing deep inside a caller.
 */
export function readResponse<T>(
  text: string,
  status: number,
  schema: z.ZodType<T>,
  context: ProviderCallContext,
): T {
  const body = parseResponseBody(text);
  if (!body.json) {
    throw badResponse(context, status, text, [{ path: '', message: 'the body is not JSON' }]);
  }
  const parsed = schema.safeParse(body.value);
  if (!parsed.success) {
    throw badResponse(context, status, body.value, parsed.error.issues.map(toIssue));
  }
  return parsed.data;
}

function toIssue(issue: z.core.$ZodIssue): BadResponseIssue {
  const path = issue.path
    .map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`))
    .join('')
    .replace(/^\./, '');
  return { path, message: issue.message };
}

function badResponse(
  context: ProviderCallContext,
  status: number,
  body: unknown,
  issues: BadResponseIssue[],
): ProviderBadResponseError {
  const list = issues.map((i) => `${i.path || '(body)'}: ${i.message}`).join('; ');
  return new ProviderBadResponseError({
    ...context,
    status,
    body,
    issues,
    message: `location '${context.location}': ${context.method} ${context.path} answered HTTP ${status} with a body of an unexpected shape (${list}); the service acted on the request, but its answer cannot be used`,
  });
}
