import type { z } from 'zod';
import { apiErrorCodes, EmulatorApiError } from '../emulator-api-error.ts';

/**
 * Validates a JSON request body with a zod schema. The first problem becomes a 400 that names
 * its field: `MISSING_PARAMETER` when the field is absent, `INVALID_PARAMETER` otherwise.
 */
export function parseRequest<Schema extends z.ZodType>(
  schema: Schema,
  body: unknown,
): z.output<Schema> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new EmulatorApiError(
      400,
      apiErrorCodes.INVALID_JSON,
      'the request body must be a JSON object sent with Content-Type: application/json',
    );
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join('.') ?? '';
  const topKey = issue?.path[0];
  if (typeof topKey === 'string' && !(topKey in body)) {
    throw new EmulatorApiError(
      400,
      apiErrorCodes.MISSING_PARAMETER,
      `missing parameter '${field}'`,
      field,
    );
  }
  throw new EmulatorApiError(
    400,
    apiErrorCodes.INVALID_PARAMETER,
    `invalid parameter '${field}': ${issue?.message ?? 'refused'}`,
    field,
  );
}
