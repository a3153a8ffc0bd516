import { errorCodes, ReplyflowError } from '../errors.ts';

/** The backend (Redis) cannot be reached or answered with an error; nothing was changed or it is unknown. */
export class StoreUnavailableError extends ReplyflowError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(errorCodes.STORE_UNAVAILABLE, message, options);
  }
}
