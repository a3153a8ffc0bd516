import { createRequire } from 'node:module';
import type { Dispatcher, Pool } from 'undici';
import type { z } from 'zod';
import { ReplyflowError } from '../errors.ts';
import type { Logger } from '../observability/logger.ts';
import { errorFromNetwork } from './error-from-network.ts';
import { errorFromResponse } from './error-from-response.ts';
import { type ProviderCallContext, ProviderRateLimitedError } from './provider-errors.ts';
import { parseResponseBody, readResponse } from './read-response.ts';
import type { RequestLimiter } from './request-limiter.ts';

/** What the client logs through: a pino logger, or anything with the same two methods. */
export type ProviderLogger = Pick<Logger, 'debug' | 'warn'>;

export interface ProviderTimeouts {
  /** Time to open a TCP/TLS connection. Default 5 s. */
  connectMs: number;
  /** Time from sending the request to receiving the response headers. Default 15 s. */
  headersMs: number;
  /** Longest silence while receiving the response body. Default 15 s. */
  bodyMs: number;
  /** How long an idle connection is kept open for the next request. Default 30 s. */
  keepAliveMs: number;
}

export const defaultTimeouts: ProviderTimeouts = {
  connectMs: 5_000,
  headersMs: 15_000,
  bodyMs: 15_000,
  keepAliveMs: 30_000,
};

export interface ProviderTransportOptions {
  baseUrl: string;
  keyId: string;
  keySecret: string;
  location: string;
  /** Any undici dispatcher; by default the transport opens its own keep-alive `Pool`. */
  dispatcher?: Dispatcher | undefined;
  limiter: RequestLimiter;
  timeouts: ProviderTimeouts;
  now(): number;
  sleep(ms: number): Promise<void>;
  logger?: ProviderLogger | undefined;
}

export interface ProviderCall<T> {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path below the base URL: `/sms`, `/groups/12/contacts`. */
  path: string;
  body?: unknown;
  /** The shape the 2xx body must have; the result is typed by it. */
  schema: z.ZodType<T>;
  /**
   * Runs once the request has its rate-limit slot, immediately before it goes out: whatever
   * changed while it waited for the slot (an opt-out, quiet hours) can still stop it. A
   * rejection is the call's: nothing is sent.
   */
  beforeRequest?: () => Promise<void>;
  /**
   * Traffic the bot started on its own (a campaign's, a timer's): it waits for its rate-limit
   * slot behind the calls without it, which are answers to people (`RequestLimiter.acquire`).
   */
  bulk?: boolean;
}

/** One HTTP exchange with the service: token, request, error mapping, response validation. */
export interface ProviderTransport {
  request<T>(call: ProviderCall<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * The only code that talks HTTP to the service. Each call waits for a rate-limit token (and for
 * any `Retry-After` the service asked for), then makes exactly one attempt: retrying is the
 * caller's decision, because only the caller knows whether the call is safe to repeat.
 */
// undici loads with the first transport: a process that only loads bots (a campaign import, the
// linter) does not pay its 5 MiB.
const load = createRequire(import.meta.url);

export function createProviderTransport(options: ProviderTransportOptions): ProviderTransport {
  const base = new URL(options.baseUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  const ownPool = options.dispatcher
    ? undefined
    : new (load('undici') as typeof import('undici')).Pool(base.origin, {
        connectTimeout: options.timeouts.connectMs,
        headersTimeout: options.timeouts.headersMs,
        bodyTimeout: options.timeouts.bodyMs,
        keepAliveTimeout: options.timeouts.keepAliveMs,
      });
  const dispatcher = options.dispatcher ?? (ownPool as Pool);
  // After a 429 every call of this key pair waits until the service's Retry-After has passed.
  let resumeAt = 0;

  async function request<T>(call: ProviderCall<T>): Promise<T> {
    const context: ProviderCallContext = {
      location: options.location,
      method: call.method,
      path: call.path,
    };
    const hold = resumeAt - options.now();
    if (hold > 0) await options.sleep(hold);
    try {
      await options.limiter.acquire(call.bulk ? { bulk: true } : undefined);
    } catch (cause) {
      // A shared limiter that cannot reach its store (StoreUnavailableError) did not find too
      // many requests waiting: its error keeps its own code and advice.
      if (cause instanceof ReplyflowError) throw cause;
      throw new ProviderRateLimitedError({
        ...context,
        cause,
        retryAfterMs: undefined,
        message: `location '${options.location}': ${call.method} ${call.path} was not sent, the client-side rate limiter refused it (${(cause as Error).message}); too many requests are waiting, slow down or raise the location's rate limit`,
      });
    }
    await call.beforeRequest?.();
    const started = options.now();
    let status: number;
    let headers: Dispatcher.ResponseData['headers'];
    let text: string;
    try {
      const response = await dispatcher.request({
        origin: base.origin,
        path: basePath + call.path,
        method: call.method,
        headers: requestHeaders(options, call.body !== undefined),
        body: call.body === undefined ? null : JSON.stringify(call.body),
        headersTimeout: options.timeouts.headersMs,
        bodyTimeout: options.timeouts.bodyMs,
      });
      status = response.statusCode;
      headers = response.headers;
      text = await response.body.text();
    } catch (cause) {
      throw errorFromNetwork(cause, { ...context, origin: base.origin });
    }
    options.logger?.debug(
      {
        location: options.location,
        method: call.method,
        path: call.path,
        status,
        ms: options.now() - started,
      },
      'messaging service call',
    );
    if (status >= 200 && status < 300) return readResponse(text, status, call.schema, context);
    const error = errorFromResponse(
      { status, headers, body: parseResponseBody(text).value },
      context,
      options.now(),
    );
    if (error instanceof ProviderRateLimitedError && error.retryAfterMs !== undefined) {
      resumeAt = Math.max(resumeAt, options.now() + error.retryAfterMs);
    }
    throw error;
  }

  return {
    request,
    async close() {
      await ownPool?.close();
    },
  };
}

function requestHeaders(
  options: ProviderTransportOptions,
  hasBody: boolean,
): Record<string, string> {
  return {
    accept: 'application/json',
    ...(hasBody ? { 'content-type': 'application/json' } : {}),
    'x-api-key-id': options.keyId,
    'x-api-key-secret': options.keySecret,
  };
}
