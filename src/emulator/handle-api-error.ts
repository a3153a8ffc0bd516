import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '../observability/logger.ts';
import { apiErrorBody, apiErrorCodes, EmulatorApiError } from './emulator-api-error.ts';

/** Every error of the emulator's routes becomes the one error body shape. */
export function handleApiError(logger: Logger): ErrorRequestHandler {
  return (error: unknown, _req, res, next) => {
    if (res.headersSent) return next(error);
    if (error instanceof EmulatorApiError) {
      res.status(error.status).json(error.toBody());
      return;
    }
    if (isBodyParserError(error)) {
      const message =
        error.type === 'entity.parse.failed'
          ? 'the request body is not valid JSON'
          : `the request body was refused: ${error.message}`;
      res
        .status(error.status)
        .json(apiErrorBody(error.status, apiErrorCodes.INVALID_JSON, message));
      return;
    }
    logger.error({ err: error }, 'emulator route failed');
    res.status(500).json(apiErrorBody(500, 'INTERNAL', 'the emulator failed; see its log'));
  };
}

/** The answer for a path no route serves. */
export const routeNotFound: RequestHandler = (req, _res, next) => {
  next(
    new EmulatorApiError(
      404,
      apiErrorCodes.NOT_FOUND,
      `no route ${req.method} ${req.originalUrl.split('?')[0]}`,
    ),
  );
};

function isBodyParserError(
  error: unknown,
): error is { status: number; type: string; message: string } {
  return (
    typeof error === 'object' &&
    error !== null &&
    'type' in error &&
    typeof error.type === 'string' &&
    'status' in error &&
    typeof error.status === 'number' &&
    error.status >= 400 &&
    error.status < 500
  );
}
