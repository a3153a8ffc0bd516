import type { ApiErrorBody } from '../provider/schemas/api-error.ts';

/** The `code` values of the emulator's error bodies, one per way a request can be refused. */
export const apiErrorCodes = {
  UNAUTHORIZED: 'UNAUTHORIZED',
  NOT_FOUND: 'NOT_FOUND',
  INVALID_JSON: 'INVALID_JSON',
  MISSING_PARAMETER: 'MISSING_PARAMETER',
  INVALID_PARAMETER: 'INVALID_PARAMETER',
  INVALID_PHONE_NUMBER: 'INVALID_PHONE_NUMBER',
  NOT_A_MOBILE_NUMBER: 'NOT_A_MOBILE_NUMBER',
  INVALID_SENDER: 'INVALID_SENDER',
  INVALID_CONTACT: 'INVALID_CONTACT',
  RATE_LIMITED: 'RATE_LIMITED',
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  HOST_NOT_ALLOWED: 'HOST_NOT_ALLOWED',
} as const;
export type ApiErrorCode = (typeof apiErrorCodes)[keyof typeof apiErrorCodes];

/**
 * A refusal of the emulated service (the one exception of its routes, as Hono's
 * `HTTPException`). The error handler turns it into the one error body shape.
 */
export class EmulatorApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ApiErrorCode | string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'EmulatorApiError';
  }

  toBody(): ApiErrorBody {
    return apiErrorBody(this.status, this.code, this.message, this.field);
  }
}

export function apiErrorBody(
  status: number,
  code: string,
  message: string,
  field?: string,
): ApiErrorBody {
  return { error: { status, code, message, ...(field === undefined ? {} : { field }) } };
}

export function notFound(what: string): EmulatorApiError {
  return new EmulatorApiError(404, apiErrorCodes.NOT_FOUND, `${what} not found in this location`);
}
