import { errorCodes, ReplyflowError } from '../errors.ts';

/**
 * The backend (Redis) cannot be reached, or cannot take writes now (out of memory, a read-only
 * replica, a cluster without a master): nothing was changed or it is unknown. Worth retrying:
 * the webhook answers 503, so the service retries.
 */
export class StoreUnavailableError extends ReplyflowError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(errorCodes.STORE_UNAVAILABLE, message, options);
  }
}

/**
 * The backend answered, and refused this call (a script error): retrying the same call gets the
 * same answer, so it is not a 503. A bug or data the checks before the store let through.
 */
export class StoreRefusedError extends ReplyflowError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(errorCodes.STORE_REFUSED, message, options);
  }
}
