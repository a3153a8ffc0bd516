import { type ErrorCode, errorCodes, ReplyflowError } from '../errors.ts';

/** Where a failed call was going: enough for an operator to find it in the service's logs. */
export interface ProviderCallContext {
  /** The location whose key pair made the call (spec §1.4: one key pair per location). */
  location: string;
  method: string;
  /** Path below the base URL, such as `/sms` or `/groups/12/contacts`. */
  path: string;
}

interface ProviderErrorOptions extends ProviderCallContext {
  message: string;
  cause?: unknown;
}

/**
 * Base of the failures of a call to the messaging service. `mayHaveReachedService` is what the
 * outbox needs for `POST /sms`: false means the service certainly did not act, so a retry is
 * safe; true means it may have, so a retry may send a duplicate.
 */
export abstract class ProviderError extends ReplyflowError {
  readonly location: string;
  readonly method: string;
  readonly path: string;
  abstract readonly mayHaveReachedService: boolean;

  constructor(code: ErrorCode, options: ProviderErrorOptions) {
    super(code, options.message, { cause: options.cause });
    this.location = options.location;
    this.method = options.method;
    this.path = options.path;
  }
}

/** The service answered 4xx: the request is definitively invalid and retrying will not help. */
export class ProviderRejectedError extends ProviderError {
  readonly mayHaveReachedService = false;
  readonly status: number;
  /** The response body, parsed as JSON when it was JSON. */
  readonly body: unknown;

  constructor(options: ProviderErrorOptions & { status: number; body: unknown }) {
    super(errorCodes.PROVIDER_REJECTED, options);
    this.status = options.status;
    this.body = options.body;
  }
}

/** The service refused this location's key pair (401/403). */
export class ProviderUnauthorizedError extends ProviderError {
  readonly mayHaveReachedService = false;
  readonly status: number;
  readonly body: unknown;

  constructor(options: ProviderErrorOptions & { status: number; body: unknown }) {
    super(errorCodes.PROVIDER_UNAUTHORIZED, options);
    this.status = options.status;
    this.body = options.body;
  }
}

/**
 * Too many requests: the service answered 429, or this client's own queue of requests waiting
 * for a rate-limit token is full. Either way nothing reached the service.
 */
export class ProviderRateLimitedError extends ProviderError {
  readonly mayHaveReachedService = false;
  /** How long to wait before trying again, from `Retry-After`; undefined when not given. */
  readonly retryAfterMs: number | undefined;
  /** 429 from the service; undefined when the client refused the request itself. */
  readonly status: number | undefined;

  constructor(
    options: ProviderErrorOptions & { retryAfterMs: number | undefined; status?: number },
  ) {
    super(errorCodes.PROVIDER_RATE_LIMITED, options);
    this.retryAfterMs = options.retryAfterMs;
    this.status = options.status;
  }
}

/** 5xx, network failure or time-out: transient, worth retrying when the call is idempotent. */
export class ProviderUnavailableError extends ProviderError {
  readonly mayHaveReachedService: boolean;
  /** The 5xx status, or undefined when no response came back. */
  readonly status: number | undefined;

  constructor(options: ProviderErrorOptions & { mayHaveReachedService: boolean; status?: number }) {
    super(errorCodes.PROVIDER_UNAVAILABLE, options);
    this.mayHaveReachedService = options.mayHaveReachedService;
    this.status = options.status;
  }
}

/** One field of a response that does not have the expected shape. */
export interface BadResponseIssue {
  /** Path of the field in the response body, such as `[0].createdAt` (empty for the body). */
  path: string;
  message: string;
}

/**
 * The service answered 2xx with a body of an unexpected shape. It did act on the request, so
 * for `POST /sms` the message was probably accepted.
 */
export class ProviderBadResponseError extends ProviderError {
  readonly mayHaveReachedService = true;
  readonly status: number;
  readonly issues: readonly BadResponseIssue[];
  readonly body: unknown;

  constructor(
    options: ProviderErrorOptions & {
      status: number;
      issues: readonly BadResponseIssue[];
      body: unknown;
    },
  ) {
    super(errorCodes.PROVIDER_BAD_RESPONSE, options);
    this.status = options.status;
    this.issues = options.issues;
    this.body = options.body;
  }
}

/** True for the failures worth retrying on an idempotent call: 5xx, network, time-out, 429. */
export function isTransientProviderError(
  error: unknown,
): error is ProviderUnavailableError | ProviderRateLimitedError {
  return error instanceof ProviderUnavailableError || error instanceof ProviderRateLimitedError;
}
